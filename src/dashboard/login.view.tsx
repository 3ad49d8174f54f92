/**
 * The admin-token form (docs/dashboard.md: "when SANDBOX_ADMIN_TOKEN is set it asks for the token once").
 */
import type { FC } from "hono/jsx";
import { Layout } from "./layout.js";

export const LoginPage: FC<{ next: string; error?: string | undefined }> = ({ next, error }) => (
  <Layout title="Log in">
    <section class="panel login" aria-labelledby="h-login">
      <h1 id="h-login">Sandbox dashboard</h1>
      <p>This sandbox is protected by an admin token (SANDBOX_ADMIN_TOKEN).</p>
      {error ? (
        <p class="flash error" role="alert" id="flash">
          {error}
        </p>
      ) : null}
      <form method="post" action="/dashboard/login">
        <input type="hidden" name="next" value={next} />
        <div class="field">
          <label for="token">Admin token</label>
          <input type="password" id="token" name="token" autocomplete="current-password" required autofocus />
        </div>
        <p>
          <button type="submit" class="primary">
            Log in
          </button>
        </p>
      </form>
    </section>
  </Layout>
);
