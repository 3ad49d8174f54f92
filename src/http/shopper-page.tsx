/**
 * The shell every page shown to a shopper shares (the 3DS challenge, docs/cards.md#3ds-challenge;
 * the hosted payment page, docs/apm.md): one centred card with the sandbox's plain style, and the
 * message page shown for a finished, closed or unknown transaction.
 */
import type { FC, PropsWithChildren } from "hono/jsx";

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:26rem;margin:2rem auto;background:#fff;border-radius:.5rem;padding:1.5rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.2rem;margin:0 0 1rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:0 0 1.5rem}
dt{color:#667}dd{margin:0;font-weight:600}.buttons{display:flex;gap:.75rem}
button{flex:1;padding:.7rem;border:0;border-radius:.4rem;font-size:1rem;cursor:pointer}
.ok{background:#1a7f37;color:#fff}.ko{background:#cf222e;color:#fff}.note{color:#667;font-size:.85rem;margin-top:1rem}`;

export const Layout: FC<PropsWithChildren<{ title: string }>> = ({ title, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title}</title>
      <style>{STYLE}</style>
    </head>
    <body>
      <main>{children}</main>
    </body>
  </html>
);

/** Shown after an answer when the merchant gave no redirect URL, and for closed or unknown challenges. */
export const MessagePage: FC<{ title: string; message: string }> = ({ title, message }) => (
  <Layout title={title}>
    <h1>{title}</h1>
    <p>{message}</p>
  </Layout>
);

/** A message page as an HTML document (for `c.html`). */
export const renderMessage = (title: string, message: string) => <MessagePage title={title} message={message} />;
