// Where partners reach the portal, for the invitation link: the address given, else
// KONTOR_PUBLIC_URL + /portal, else the fallback (the app: the address the person uses;
// the command line: http://127.0.0.1:<PORT or 8080>/portal). Kontor cannot know by itself
// the address partners reach it at.

export class PortalUrlError extends Error {}

export function portalUrlOf(given: string | undefined, env: NodeJS.ProcessEnv, fallback: string): string {
  const base = given ?? (env.KONTOR_PUBLIC_URL ? `${env.KONTOR_PUBLIC_URL.replace(/\/+$/, '')}/portal` : fallback);
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new PortalUrlError(`not a URL: ${base}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PortalUrlError(`the portal's address must be http(s): ${base}`);
  return base.replace(/\/+$/, '');
}
