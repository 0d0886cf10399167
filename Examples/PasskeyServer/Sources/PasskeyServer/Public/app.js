// The passkey page: plain JavaScript, no build step. Options from the server go through
// PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON, and
// credentials go back as credential.toJSON(); the server does all the checking.
"use strict";

const $ = (id) => document.getElementById(id);
let conditionalAbort = null;
// "#no-autofill" turns the conditional request off (the end-to-end tests use it for the steps
// that must go through a button: a virtual authenticator answers conditional requests at once).
const autofill = location.hash !== "#no-autofill";

function status(text, ok) {
  const el = $("status");
  el.textContent = text;
  el.className = ok ? "ok" : "error";
}

async function api(path, body, method = "POST") {
  const init = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function stopConditional() {
  if (conditionalAbort) { conditionalAbort.abort(); conditionalAbort = null; }
}

async function register(username) {
  stopConditional();
  const options = await api("/api/register/options", { username });
  const credential = await navigator.credentials.create({
    publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options),
  });
  const result = await api("/api/register/verify", credential.toJSON());
  status(`Passkey created for ${result.username}.`, true);
  await refresh();
}

async function login(username, mediation) {
  if (mediation !== "conditional") stopConditional();
  const options = await api("/api/login/options", username ? { username } : {});
  const request = { publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) };
  if (mediation === "conditional") {
    conditionalAbort = new AbortController();
    request.mediation = "conditional";
    request.signal = conditionalAbort.signal;
  }
  const credential = await navigator.credentials.get(request);
  const result = await api("/api/login/verify", credential.toJSON());
  document.body.dataset.lastLogin = mediation === "conditional" ? "conditional" : (username ? "username" : "usernameless");
  status(`Signed in as ${result.username}.`, true);
  await refresh();
}

// Autofill: offer saved passkeys in the username field as soon as the page loads.
async function startConditional() {
  if (!autofill) return;
  if (!window.PublicKeyCredential || !PublicKeyCredential.isConditionalMediationAvailable) return;
  if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
  try {
    await login(undefined, "conditional");
  } catch (error) {
    if (error.name !== "AbortError") status(`Sign-in failed: ${error.message}`, false);
  }
}

async function refresh() {
  let me = null;
  try { me = await api("/api/me", undefined, "GET"); } catch (_) { me = null; }
  $("signed-in").hidden = !me;
  $("signed-out").hidden = !!me;
  const list = $("passkeys");
  list.textContent = "";
  if (!me) { document.body.dataset.state = "signed-out"; return; }
  $("me").textContent = me.username;
  for (const passkey of me.passkeys) {
    const item = document.createElement("li");
    item.dataset.credentialId = passkey.id;
    const id = document.createElement("code");
    id.textContent = passkey.id;
    const details = document.createElement("span");
    details.textContent = ` ${passkey.backupEligible ? "synced" : "device-bound"}, created ${passkey.createdAt}` +
      (passkey.lastUsedAt ? `, last used ${passkey.lastUsedAt}` : "") + " ";
    const remove = document.createElement("button");
    remove.textContent = "Delete";
    remove.className = "delete";
    remove.addEventListener("click", () => run(async () => {
      await api(`/api/passkeys/${encodeURIComponent(passkey.id)}`, undefined, "DELETE");
      status("Passkey deleted.", true);
      await refresh();
    }));
    item.append(id, details, remove);
    list.append(item);
  }
  document.body.dataset.state = "signed-in";
  document.body.dataset.passkeys = String(me.passkeys.length);
}

async function run(action) {
  try { await action(); } catch (error) { status(error.message || String(error), false); }
}

$("register").addEventListener("click", () => run(() => register($("new-username").value)));
$("login").addEventListener("click", () => run(() => login($("username").value)));
$("login-usernameless").addEventListener("click", () => run(() => login(undefined)));
$("add-passkey").addEventListener("click", () => run(() => register(undefined)));
$("logout").addEventListener("click", () => run(async () => {
  await api("/api/logout", {});
  status("Signed out.", true);
  await refresh();
  startConditional();
}));

refresh().then(() => { if ($("signed-in").hidden) startConditional(); });
