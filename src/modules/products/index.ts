// Products: articles kept by reference with a product number and a pricing model.

export { type BillingInterval, checkPricing, defaultPricingModel, PRICING_MODELS, type PricingModel, type PricingTerms, priceForQuantity } from './pricing.ts';
export { type ProductView, productNotFound, productView } from './product-view.ts';
export { findProductByNumber, findProductByRef, findProductByRefOrNumber, type ProductLookup, type ProductRow } from './products.repository.ts';
export { registerProductRoutes } from './products.routes.ts';
export { type ProductInput, upsertProduct } from './upsert-product.ts';
