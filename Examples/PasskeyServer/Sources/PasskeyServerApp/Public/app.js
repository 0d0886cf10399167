// The passkey page: plain JavaScript, no build step. Options from the server go through
// PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON, and
// credentials go back as credential.toJSON(); the server does all the checking.
//
// Extensions: the server's options ask for credProps and prf (a salt per user); the parse
// functions pass them to the authenticator unchanged, and toJSON() carries the outputs back
// (clientExtensionResults, PRF outputs as base64url). The PRF output is this page's key: the
// server only checks that it arrived and keeps "PRF enabled"; the page derives a key from it and
// shows a short fingerprint of it (never the output).
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
  if (!response.ok) {
    const error = new Error(data.error || `HTTP ${response.status}`);
    error.reauthenticate = data.reauthenticate === true;
    throw error;
  }
  return data;
}

// Adding or deleting a passkey needs a recent sign-in (the server says "reauthenticate" when
// the session is older than a few minutes): sign in again with a passkey, then retry once.
async function withFreshSignIn(action) {
  try {
    return await action();
  } catch (error) {
    if (!error.reauthenticate) throw error;
    status("Confirm it is you: sign in with a passkey.", true);
    await login($("me").textContent);
    return await action();
  }
}

function stopConditional() {
  if (conditionalAbort) { conditionalAbort.abort(); conditionalAbort = null; }
}

// The PRF output of a ceremony (ArrayBuffer, 32 bytes), or null.
function prfOutput(credential) {
  const prf = credential.getClientExtensionResults().prf;
  return prf && prf.results && prf.results.first ? prf.results.first : null;
}

// Uses the PRF output the way an application would: a non-extractable AES-GCM key derived with
// HKDF (kept in memory for this page), and a fingerprint (first 8 bytes of SHA-256 of the output)
// that names the key without revealing it: the same passkey and salt give the same fingerprint.
let prfKey = null;
async function usePrfOutput(output) {
  if (!output) return;
  const material = await crypto.subtle.importKey("raw", output, "HKDF", false, ["deriveKey"]);
  prfKey = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("passkey-server data key") },
    material, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", output));
  document.body.dataset.prfKeyId = Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

function clearPrf() {
  prfKey = null;
  delete document.body.dataset.prfKeyId;
  delete document.body.dataset.prf;
}

async function register(username) {
  stopConditional();
  const options = username === undefined
    ? await withFreshSignIn(() => api("/api/register/options", {}))
    : await api("/api/register/options", { username });
  const credential = await navigator.credentials.create({
    publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options),
  });
  const result = await api("/api/register/verify", credential.toJSON());
  clearPrf();
  document.body.dataset.prf = result.prf ? "1" : "0";
  await usePrfOutput(result.prf ? prfOutput(credential) : null);
  status(`Passkey created for ${result.username}.` + (result.prf ? " Its PRF key is ready." : ""), true);
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
  clearPrf();
  document.body.dataset.prf = result.prf ? "1" : "0";
  await usePrfOutput(result.prf ? prfOutput(credential) : null);
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
  try {
    // The list comes in pages (at most 32 passkeys an account): follow "next" to the end.
    me = await api("/api/me", undefined, "GET");
    for (let page = me; page.next; ) {
      page = await api(`/api/me?after=${encodeURIComponent(page.next)}`, undefined, "GET");
      me.passkeys.push(...page.passkeys);
    }
  } catch (_) { me = null; }
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
    const discoverable = passkey.discoverable === undefined ? "" :
      (passkey.discoverable ? ", discoverable" : ", needs the username");
    const prf = passkey.prfEnabled ? ", PRF" : "";
    item.dataset.discoverable = passkey.discoverable === undefined ? "unknown" : String(passkey.discoverable);
    item.dataset.prfEnabled = passkey.prfEnabled === undefined ? "unknown" : String(passkey.prfEnabled);
    const provider = passkey.provider ? `${passkey.provider}: ` : "";
    details.textContent = ` ${provider}${passkey.backupEligible ? "synced" : "device-bound"}${discoverable}${prf}, created ${passkey.createdAt}` +
      (passkey.lastUsedAt ? `, last used ${passkey.lastUsedAt}` : "") + " ";
    const remove = document.createElement("button");
    remove.textContent = "Delete";
    remove.className = "delete";
    remove.addEventListener("click", () => run(async () => {
      const result = await withFreshSignIn(() => api(`/api/passkeys/${encodeURIComponent(passkey.id)}`, undefined, "DELETE"));
      status(result.signedOut ? "Passkey deleted; it had signed you in, so you are signed out." : "Passkey deleted.", true);
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
for (const [id, path, text] of [["logout", "/api/logout", "Signed out."],
                                ["logout-all", "/api/logout-all", "Signed out on every device."]]) {
  $(id).addEventListener("click", () => run(async () => {
    await api(path, {});
    clearPrf();
    status(text, true);
    await refresh();
    startConditional();
  }));
}

refresh().then(() => { if ($("signed-in").hidden) startConditional(); });
