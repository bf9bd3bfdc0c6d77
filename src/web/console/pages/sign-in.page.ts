import { field, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { onSubmit } from "../form-submit.ts";
import type { Session } from "../types.ts";

export function signInPage(onSignedIn: (s: Session) => void): Node {
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const status = h("div", { class: "form-status" });
  const submit = h("button", { class: "btn btn-primary btn-block", type: "submit" }, "Sign in");
  const form = h(
    "form",
    {
      class: "card signin-card",
      onsubmit: onSubmit(
        submit,
        status,
        async () => onSignedIn(await api<Session>("POST", "/session", { email: email.value, password: password.value })),
        () => {
          password.value = "";
          password.focus();
        },
      ),
    },
    h("h1", null, "Sign in"),
    h("p", { class: "muted" }, "Manage your assistants, documents, corrections and leads."),
    status,
    field("Email", email),
    field("Password", password),
    submit,
    h(
      "p",
      { class: "hint" },
      "No account yet? An administrator creates one with ",
      h("code", null, "docchat account create --email … --password …"),
      ".",
    ),
  );
  return h(
    "main",
    { class: "signin" },
    h("div", { class: "signin-brand" }, h("span", { class: "brand-mark", "aria-hidden": "true" }, "d"), "docchat"),
    form,
  );
}
