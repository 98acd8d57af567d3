/** A refusal of a person-side (admin) step; the command line prints its message. */
export class AdminError extends Error {}
