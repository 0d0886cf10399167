#!/usr/bin/env python3
"""End-to-end tests of the passkey server with real parts: headless Chromium driving the page
with the DevTools virtual authenticator, two server nodes sharing one PostgreSQL database, and
raw HTTP for the cases a browser never sends. Assertions are on HTTP answers, on the page and on
the database rows.

Started by run-e2e.sh, which provides (environment):
  NODE_A, NODE_B         base URLs of the two nodes (http://localhost:PORT)
  NODE_A_PID             pid of node A (killed with SIGKILL in the crash test, at the end)
  PSQL_URL               a libpq connection string for psql
  CHROMIUM, CHROMEDRIVER paths of the browser and its driver
  FAILED_CEREMONIES_DIR  where the nodes record failed ceremonies (RECORD_FAILED_CEREMONIES_DIR)
  WEBAUTHN_REPLAY        the webauthn-replay executable
  E2E_SESSION_KEY        the nodes' cookie key (must never appear in a recording)
  E2E_OLD_CREDENTIAL_TABLE  set when run-e2e.sh made the credential table in its older shape
"""
import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Credential, VirtualAuthenticatorOptions
from selenium.webdriver.support.ui import WebDriverWait

NODE_A = os.environ["NODE_A"]
NODE_B = os.environ["NODE_B"]
PSQL_URL = os.environ["PSQL_URL"]
TIMEOUT = 20
results = []


def check(condition, what):
    results.append((bool(condition), what))
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        raise AssertionError(what)


def sql(query):
    out = subprocess.run(["psql", PSQL_URL, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", query],
                         check=True, capture_output=True, text=True, timeout=30)
    return out.stdout.strip()


def rows():
    return {
        "users": int(sql("SELECT count(*) FROM passkey_users")),
        "credentials": int(sql("SELECT count(*) FROM passkey_credentials")),
    }


def http(method, url, body=None, headers=None, cookies=None):
    """(status, parsed JSON or text) of one request; never raises for an HTTP status."""
    request = urllib.request.Request(url, data=body, method=method, headers=dict(headers or {}))
    if cookies:
        request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()))
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            status, data = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, data = error.code, error.read()
    try:
        return status, json.loads(data)
    except ValueError:
        return status, data


def ceremony_cookie(base, path, body, name):
    """A fresh ceremony cookie from an options endpoint, for sending bodies through the verifier."""
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        for header in response.headers.get_all("Set-Cookie") or []:
            if header.startswith(name + "="):
                return header.split(";", 1)[0].split("=", 1)[1]
    raise AssertionError(f"no {name} cookie from {path}")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# --- The browser -----------------------------------------------------------------------------

def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--no-first-run", "--disable-extensions", "--window-size=1200,900"):
        options.add_argument(flag)
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_script_timeout(TIMEOUT)
    return driver


class AuthenticatorOptions(VirtualAuthenticatorOptions):
    """Selenium's options plus WebDriver's `extensions` list (DevTools' hasPrf, hasLargeBlob, ...)."""

    def __init__(self, extensions=(), **options):
        super().__init__(**options)
        self.extensions = list(extensions)

    def to_dict(self):
        out = super().to_dict()
        if self.extensions:
            out["extensions"] = self.extensions
        return out


def platform_authenticator(driver):
    """A phone or laptop: CTAP2, internal, discoverable credentials, user verification, and the
    prf extension (hmac-secret, evaluated at creation too)."""
    driver.add_virtual_authenticator(AuthenticatorOptions(
        extensions=["prf"], protocol="ctap2", transport="internal", has_resident_key=True,
        has_user_verification=True, is_user_consenting=True, is_user_verified=True))
    return driver.virtual_authenticator_id


def security_key(driver):
    """A USB security key without discoverable credentials or user verification."""
    driver.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol="ctap2", transport="usb", has_resident_key=False, has_user_verification=False,
        is_user_consenting=True, is_user_verified=False))
    return driver.virtual_authenticator_id


def status_text(driver):
    return driver.find_element(By.ID, "status").text


def wait_status(driver, contains):
    WebDriverWait(driver, TIMEOUT).until(lambda d: contains in status_text(d) or "failed" in status_text(d).lower()
                                         or "error" in driver.find_element(By.ID, "status").get_attribute("class"))
    return status_text(driver)


def wait_state(driver, state):
    WebDriverWait(driver, TIMEOUT).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == state)


def open_page(driver, base, autofill=False):
    driver.get(base + ("/" if autofill else "/#no-autofill"))
    WebDriverWait(driver, TIMEOUT).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state"))


def click(driver, element_id):
    driver.find_element(By.ID, element_id).click()


def sign_out(driver):
    click(driver, "logout")
    wait_state(driver, "signed-out")


def last_login(driver):
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-last-login")


def body_data(driver, name):
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-" + name)


def credential_row(credential_hex):
    """(discoverable, prf_enabled, the record's extensions) of one credential row: the columns
    the migration added ('true', 'false' or 'null') and the CredentialExtensionProperties inside
    the stored record. The Fluent stores' table (the Vapor example) has no discoverable column:
    there it is read from the record, where both kinds of store keep it."""
    column = sql("SELECT count(*) FROM information_schema.columns"
                 " WHERE table_name = 'passkey_credentials' AND column_name = 'discoverable'") == "1"
    discoverable = "discoverable::text" if column else "record::jsonb -> 'extensions' ->> 'discoverable'"
    line = sql(f"SELECT coalesce({discoverable}, 'null'), coalesce(prf_enabled::text, 'null'),"
               " (record::jsonb -> 'extensions')::text"
               f" FROM passkey_credentials WHERE id = decode('{credential_hex}', 'hex')")
    discoverable, prf_enabled, extensions = line.split("|", 2)
    return discoverable, prf_enabled, json.loads(extensions or "null")


def passkey_list(driver, base):
    """The passkey list API (/api/me) with the browser's session cookie, by credential id."""
    session = {c["name"]: c["value"] for c in driver.get_cookies()}.get("pk_session")
    status, answer = http("GET", base + "/api/me", cookies={"pk_session": session})
    check(status == 200 and isinstance(answer, dict), f"the passkey list answers ({status})")
    return {passkey["id"]: passkey for passkey in answer["passkeys"]}


def b64url_to_hex(text):
    return b64url_decode(text).hex()


def browser_assertion(driver, base, username=None):
    """Runs options + navigator.credentials.get in the page of `base` and returns the response
    JSON and the ceremony cookie without posting it: the signed response for the raw-HTTP tests."""
    if not driver.current_url.startswith(base):
        open_page(driver, base)
    response = driver.execute_async_script("""
        const [username, done] = arguments;
        (async () => {
          const r = await fetch('/api/login/options', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                 body: JSON.stringify(username ? {username} : {})});
          const options = await r.json();
          const credential = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options)});
          done(JSON.stringify(credential.toJSON()));
        })().catch(e => done('ERROR ' + e));
    """, username)
    check(not response.startswith("ERROR"), f"the browser signed an assertion for the raw tests ({response[:80]})")
    cookie = {c["name"]: c["value"] for c in driver.get_cookies()}.get("pk_login")
    check(cookie, "the login ceremony cookie is set (HttpOnly, read through WebDriver)")
    return response.encode(), cookie


# --- The tests -------------------------------------------------------------------------------

def browser_flows(driver):
    before = rows()
    open_page(driver, NODE_A)
    platform = platform_authenticator(driver)

    # Register on node A with the platform authenticator.
    driver.find_element(By.ID, "new-username").send_keys("alice")
    click(driver, "register")
    wait_state(driver, "signed-in")
    check("alice" in wait_status(driver, "Passkey created"), "registration on node A: signed in as alice")
    check(rows() == {"users": before["users"] + 1, "credentials": before["credentials"] + 1},
          "registration wrote one user row and one credential row")
    handle = sql("SELECT encode(user_handle, 'hex') FROM passkey_users WHERE username = 'alice'")
    check(len(handle) == 128, "alice's user handle is 64 random bytes")
    first_id = sql(f"SELECT encode(id, 'base64') FROM passkey_credentials WHERE user_handle = decode('{handle}', 'hex')")
    cookies = {c["name"]: c for c in driver.get_cookies()}
    check(cookies["pk_session"]["httpOnly"] and cookies["pk_session"].get("sameSite") == "Strict",
          "the session cookie is HttpOnly and SameSite=Strict")
    counter_after_registration = int(sql("SELECT sign_count FROM passkey_credentials"
                                         f" WHERE user_handle = decode('{handle}', 'hex')"))

    # Extensions at registration: credProps said discoverable, prf said enabled (and evaluated
    # the user's salt at creation). The row and the record inside it say so; the PRF output is
    # nowhere in the database.
    first_hex = sql(f"SELECT encode(id, 'hex') FROM passkey_credentials WHERE user_handle = decode('{handle}', 'hex')")
    discoverable, prf_enabled, extensions = credential_row(first_hex)
    check(discoverable == "true" and extensions.get("discoverable") is True,
          f"credProps: the platform credential's row says discoverable ({discoverable}, record {extensions})")
    check(prf_enabled == "true" and extensions.get("prfEnabled") is True,
          f"prf: the platform credential's row says PRF enabled ({prf_enabled}, record {extensions})")
    registration_key = body_data(driver, "prf-key-id")
    check(body_data(driver, "prf") == "1" and registration_key and len(registration_key) == 16,
          f"prf at registration: the server saw the PRF evaluated, the page derived its key ({registration_key})")
    listed = passkey_list(driver, NODE_A)
    first_listed = next(iter(listed.values()))
    check(len(listed) == 1 and first_listed.get("discoverable") is True and first_listed.get("prfEnabled") is True,
          f"the passkey list shows discoverable and PRF enabled ({first_listed})")

    # The same authenticator cannot register twice: the options exclude its credential.
    click(driver, "add-passkey")
    WebDriverWait(driver, TIMEOUT).until(lambda d: "error" in d.find_element(By.ID, "status").get_attribute("class"))
    check(driver.find_element(By.TAG_NAME, "body").get_attribute("data-passkeys") == "1"
          and rows()["credentials"] == before["credentials"] + 1,
          f"excludeCredentials: the same authenticator is not registered twice ({status_text(driver)[:60]!r})")

    # A second account with the same name is refused.
    status, body = http("POST", NODE_B + "/api/register/options", json.dumps({"username": "alice"}).encode(),
                        {"Content-Type": "application/json"})
    check(status == 409, f"registering a taken username is refused with 409 ({status} {body})")

    # Log in username-first on node B (the other node: shared database, shared cookie key).
    sign_out(driver)
    open_page(driver, NODE_B)
    driver.find_element(By.ID, "username").send_keys("alice")
    click(driver, "login")
    wait_state(driver, "signed-in")
    check("Signed in as alice" in status_text(driver) and last_login(driver) == "username", "username-first login on node B")
    check(body_data(driver, "prf") == "1", "prf at login: the server verified PRF results for the salt it asked")
    check(body_data(driver, "prf-key-id") == registration_key,
          f"prf: the login on node B gave the same PRF key as the registration on node A (the per-user salt is"
          f" derived server-side; fingerprint {body_data(driver, 'prf-key-id')})")
    check(credential_row(first_hex)[:2] == ("true", "true"), "after the PRF login the row still says discoverable, PRF enabled")
    counter = int(sql(f"SELECT sign_count FROM passkey_credentials WHERE user_handle = decode('{handle}', 'hex')"))
    check(counter > counter_after_registration, f"the login advanced the stored counter ({counter_after_registration} -> {counter})")
    check(sql(f"SELECT last_used_at IS NOT NULL FROM passkey_credentials WHERE user_handle = decode('{handle}', 'hex')") == "t",
          "the login recorded last_used_at")

    # Usernameless (discoverable) login.
    sign_out(driver)
    click(driver, "login-usernameless")
    wait_state(driver, "signed-in")
    check("Signed in as alice" in status_text(driver) and last_login(driver) == "usernameless", "usernameless login")
    check(body_data(driver, "prf") == "0" and not body_data(driver, "prf-key-id"),
          "a usernameless login does not ask for PRF (the salt is per user, unknown before the response)")

    # Conditional UI: the page starts a conditional get on load; the virtual authenticator answers it.
    sign_out(driver)
    open_page(driver, NODE_A, autofill=True)
    try:
        wait_state(driver, "signed-in")
        conditional = "Signed in as alice" in status_text(driver) and last_login(driver) == "conditional"
    except Exception:
        conditional = False
    check(conditional, "conditional UI (autofill) login, started on page load")
    driver.get(NODE_B + "/#no-autofill")   # another origin: a full load, conditional UI off
    wait_state(driver, "signed-in")

    # A second passkey on a USB security key without discoverable credentials.
    saved_platform = driver.get_credentials()
    check(len(saved_platform) == 1 and saved_platform[0].is_resident_credential,
          "the platform authenticator holds one discoverable credential")
    driver.remove_virtual_authenticator()
    security_key(driver)
    click(driver, "add-passkey")
    WebDriverWait(driver, TIMEOUT).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-passkeys") == "2")
    check(int(sql(f"SELECT count(*) FROM passkey_credentials WHERE user_handle = decode('{handle}', 'hex')")) == 2,
          "a second passkey (USB key, not discoverable): two credential rows for alice")
    key_hex = sql(f"SELECT encode(id, 'hex') FROM passkey_credentials WHERE user_handle = decode('{handle}', 'hex')"
                  f" AND id <> decode('{first_hex}', 'hex')")
    discoverable, prf_enabled, extensions = credential_row(key_hex)
    check(discoverable == "false" and extensions.get("discoverable") is False,
          f"credProps: the security key's row says not discoverable ({discoverable}, record {extensions})")
    check(prf_enabled == "false" and body_data(driver, "prf") == "0",
          f"prf: the security key without hmac-secret is recorded as PRF not enabled ({prf_enabled})")
    listed = passkey_list(driver, NODE_B)
    key_listed = next(p for i, p in listed.items() if b64url_to_hex(i) == key_hex)
    check(key_listed.get("discoverable") is False and key_listed.get("prfEnabled") is False,
          f"the passkey list shows the security key as not discoverable, no PRF ({key_listed})")
    check(driver.find_element(By.CSS_SELECTOR, f'li[data-discoverable="false"]') is not None,
          "the page lists the security key as not discoverable")

    # Log in username-first with the security key (allowCredentials names it).
    sign_out(driver)
    driver.find_element(By.ID, "username").send_keys("alice")
    click(driver, "login")
    wait_state(driver, "signed-in")
    check("Signed in as alice" in status_text(driver) and last_login(driver) == "username",
          "username-first login with the USB security key")
    check(body_data(driver, "prf") == "0" and credential_row(key_hex)[:2] == ("false", "false"),
          "the security key's login asked for PRF, got none, and its row is unchanged (not discoverable, no PRF)")

    # Delete the platform passkey (the first one) from the list.
    first_b64url = first_id.replace("+", "-").replace("/", "_").rstrip("=").replace("\n", "")
    item = driver.find_element(By.CSS_SELECTOR, f'li[data-credential-id="{first_b64url}"] button.delete')
    item.click()
    WebDriverWait(driver, TIMEOUT).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-passkeys") == "1")
    check(int(sql(f"SELECT count(*) FROM passkey_credentials WHERE user_handle = decode('{handle}', 'hex')")) == 1,
          "deleting a passkey removed its row")

    # The platform authenticator still holds the deleted credential: its login is refused by the server.
    sign_out(driver)
    driver.remove_virtual_authenticator()
    platform_authenticator(driver)
    for credential in saved_platform:
        driver.add_credential(credential)
    before = rows()
    click(driver, "login-usernameless")
    text = wait_status(driver, "Signed in")
    check("Signed in" not in text and driver.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "signed-out",
          f"login with the deleted passkey is refused ({text!r})")
    check(rows() == before, "the refused login changed no row")
    return handle


def replay_explain(path):
    """(exit code, output) of `webauthn-replay --explain path`."""
    out = subprocess.run([os.environ["WEBAUTHN_REPLAY"], "--explain", path], capture_output=True, text=True, timeout=60)
    return out.returncode, out.stdout + out.stderr


def recordings(category):
    folder = os.environ["FAILED_CEREMONIES_DIR"]
    return sorted(os.path.join(folder, name) for name in os.listdir(folder)
                  if name.endswith(".json") and f"-authentication-{category}-" in name)


def check_recording(path, category, secrets):
    """The recording replays to the same verdict, --explain names the failing step, nothing secret is in it."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    document = json.loads(text)
    ceremony = document["ceremonies"][0]
    check(document["format"] == "webauthn-ceremonies/1" and ceremony["expect"] == {**ceremony["expect"], "outcome": "reject", "error": category},
          f"the recording of the failed login expects reject({category})")
    check(os.stat(path).st_mode & 0o077 == 0, "the recording is readable by its owner only")
    check(not any(secret and secret in text for secret in secrets),
          "the recording holds no session key, cookie or username")
    status, output = replay_explain(path)
    step = ceremony["expect"]["observed"]["step"]
    check(status == 0 and f"expected reject({category}), got reject({category})" in output
          and output.rstrip().endswith("1 passed, 0 failed"),
          f"webauthn-replay reaches the same verdict, reject({category}) (exit {status})")
    check(f"FAILED   {step}:" in output, f"webauthn-replay --explain names the failing step ({step})")
    print(f"     {os.path.basename(path)}: " + next(line.strip() for line in output.splitlines() if "FAILED " in line), flush=True)


def failed_ceremonies_replayed(driver):
    """Nodes A and B record their failed ceremonies (RECORD_FAILED_CEREMONIES_DIR): the login with
    the deleted passkey (browser_flows, node B) and a login whose signature the client tampered with are each
    written as a webauthn-ceremonies/1 file, which webauthn-replay replays to the same verdict and
    category, --explain showing the step that failed."""
    secrets = [os.environ.get("E2E_SESSION_KEY", ""), '"alice"', '"bob"']
    deleted = recordings("unknownCredential")
    check(len(deleted) >= 1, f"the login with the deleted passkey was recorded ({len(deleted)} file)")
    check_recording(deleted[-1], "unknownCredential", secrets)

    # bob's security key (two_nodes_same_response) signs; the client flips a bit of the signature.
    body, cookie = browser_assertion(driver, NODE_A, "bob")
    response = json.loads(body)
    signature = bytearray(b64url_decode(response["response"]["signature"]))
    signature[-1] ^= 0x01
    response["response"]["signature"] = base64.urlsafe_b64encode(bytes(signature)).decode().rstrip("=")
    before = set(recordings("signature"))
    status, _ = http("POST", NODE_A + "/api/login/verify", json.dumps(response).encode(),
                     {"Content-Type": "application/json"}, {"pk_login": cookie})
    check(status == 401, f"a login with a tampered signature is refused ({status})")
    tampered = [path for path in recordings("signature") if path not in before]
    check(len(tampered) == 1, "the tampered login was recorded")
    check_recording(tampered[0], "signature", secrets + [cookie])


def prf_output_not_recorded(driver):
    """A failed login that carried a PRF output (dave's platform passkey; the client tampered
    with the signature) is recorded for replay with the output zeroed: the client's secret is
    not in the file, and the replay still reaches reject(signature)."""
    saved = driver.get_credentials()   # bob's security key, restored at the end
    driver.remove_virtual_authenticator()
    platform_authenticator(driver)
    open_page(driver, NODE_A)
    if driver.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "signed-in":
        sign_out(driver)
    driver.find_element(By.ID, "new-username").clear()   # the same URL again does not reload the page
    driver.find_element(By.ID, "new-username").send_keys("dave")
    click(driver, "register")
    wait_state(driver, "signed-in")
    sign_out(driver)
    body, cookie = browser_assertion(driver, NODE_A, "dave")
    response = json.loads(body)
    output = ((response.get("clientExtensionResults") or {}).get("prf") or {}).get("results", {}).get("first")
    check(output and len(b64url_decode(output)) == 32, "the browser returned a PRF output (toJSON: base64url, 32 bytes)")
    signature = bytearray(b64url_decode(response["response"]["signature"]))
    signature[-1] ^= 0x01
    response["response"]["signature"] = base64.urlsafe_b64encode(bytes(signature)).decode().rstrip("=")
    before = set(recordings("signature"))
    status, _ = http("POST", NODE_A + "/api/login/verify", json.dumps(response).encode(),
                     {"Content-Type": "application/json"}, {"pk_login": cookie})
    check(status == 401, f"a PRF login with a tampered signature is refused ({status})")
    recorded = [path for path in recordings("signature") if path not in before]
    check(len(recorded) == 1, "the tampered PRF login was recorded")
    with open(recorded[0], encoding="utf-8") as handle:
        document = json.load(handle)
    kept = document["ceremonies"][0]["response"]["clientExtensionResults"]["prf"]["results"]["first"]
    check(kept == base64.urlsafe_b64encode(bytes(32)).decode().rstrip("="),
          "the recording keeps the PRF output's shape, zeroed")
    check_recording(recorded[0], "signature", [os.environ.get("E2E_SESSION_KEY", ""), '"dave"', cookie, output])

    # A body that does not parse as a response is recorded as its text: the output is zeroed there too.
    body, cookie = browser_assertion(driver, NODE_A, "dave")
    response = json.loads(body)
    output = response["clientExtensionResults"]["prf"]["results"]["first"]
    del response["type"]
    before = set(recordings("malformed"))
    status, _ = http("POST", NODE_A + "/api/login/verify", json.dumps(response).encode(),
                     {"Content-Type": "application/json"}, {"pk_login": cookie})
    check(status == 400, f"a PRF login without its type member is refused as malformed ({status})")
    recorded = [path for path in recordings("malformed") if path not in before]
    check(len(recorded) == 1, "the malformed PRF login was recorded")
    with open(recorded[0], encoding="utf-8") as handle:
        text = handle.read()
    zeroed = base64.urlsafe_b64encode(bytes(32)).decode().rstrip("=")
    check(output not in text and zeroed in text, "the malformed login's recording holds the PRF output zeroed, not the output")
    status, replayed = replay_explain(recorded[0])
    check(status == 0 and "expected reject(malformed), got reject(malformed)" in replayed,
          "the malformed login's recording replays as reject(malformed)")
    driver.remove_virtual_authenticator()
    security_key(driver)
    for credential in saved:
        driver.add_credential(credential)


def two_nodes_same_response(driver):
    """One signed response sent to both nodes at the same instant: accepted exactly once."""
    driver.remove_virtual_authenticator()
    # Log in with alice's remaining passkey (the security key) through raw HTTP.
    security_key(driver)
    open_page(driver, NODE_A)
    status, _ = http("GET", NODE_A + "/healthz")
    check(status == 200, "node A serves")
    # Register a fresh user with this authenticator so the response can be made without the UI.
    driver.find_element(By.ID, "new-username").send_keys("bob")
    click(driver, "register")
    wait_state(driver, "signed-in")
    sign_out(driver)
    body, cookie = browser_assertion(driver, NODE_A, "bob")
    statuses = []
    barrier = threading.Barrier(2)

    def send(base):
        barrier.wait()
        statuses.append(http("POST", base + "/api/login/verify", body, {"Content-Type": "application/json"},
                             {"pk_login": cookie})[0])

    threads = [threading.Thread(target=send, args=(base,)) for base in (NODE_A, NODE_B)]
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    check(sorted(statuses) == [200, 400], f"the same response at both nodes at once: accepted exactly once ({statuses})")
    # And again later, to either: refused.
    check(http("POST", NODE_B + "/api/login/verify", body, {"Content-Type": "application/json"},
               {"pk_login": cookie})[0] == 400, "the replayed response is refused afterwards")


def overtaken_login(driver, path="/api/login/verify"):
    """The lost-update race made deterministic: node B (E2E_UPDATE_DELAY_MS) verifies the
    assertion with counter n and waits before storing it; meanwhile node A verifies and stores
    the assertion with counter n+1. B's conditional UPDATE then matches no row: B's login is
    refused (401), the stored counter stays n+1, never going back to n, and B starts nothing:
    the counter update carries the sign-in (a session, or with `path` the token login's token
    family) in the same statement, so only A's sign-in is written."""
    first = browser_assertion(driver, NODE_A, "bob")
    second = browser_assertion(driver, NODE_A, "bob")
    signed = [int.from_bytes(b64url_decode(json.loads(body)["response"]["authenticatorData"])[33:37], "big")
              for body, _ in (first, second)]
    credential_hex = b64url_decode(json.loads(second[0])["rawId"]).hex()
    sign_ins = ("SELECT (SELECT count(*) FROM passkey_sessions) || '/' || (SELECT count(*) FROM passkey_token_families)"
                f" || '/' || (SELECT count(*) FROM passkey_refresh_tokens)")
    before = [int(n) for n in sql(sign_ins).split("/")]
    answers = {}

    def slow():
        answers["B"] = http("POST", NODE_B + path, first[0], {"Content-Type": "application/json"},
                            {"pk_login": first[1]})
    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.5)   # B has verified and is waiting to store counter n
    answers["A"] = http("POST", NODE_A + path, second[0], {"Content-Type": "application/json"},
                        {"pk_login": second[1]})
    thread.join()
    stored = int(sql(f"SELECT sign_count FROM passkey_credentials WHERE id = decode('{credential_hex}', 'hex')"))
    after = [int(n) for n in sql(sign_ins).split("/")]
    check(answers["A"][0] == 200, f"{path}: overtaking login (counter {signed[1]}) on node A accepted ({answers['A'][0]})")
    check(answers["B"][0] == 401, f"{path}: overtaken login (counter {signed[0]}) on node B refused by the conditional UPDATE"
                                  f" ({answers['B']})")
    check(stored == signed[1], f"{path}: the stored counter stayed {signed[1]} ({stored})")
    tokens = path != "/api/login/verify"
    expected = [before[0], before[1] + 1, before[2] + 1] if tokens else [before[0] + 1, before[1], before[2]]
    check(after == expected, f"{path}: only the accepted login's {'token family' if tokens else 'session'} was written"
                             f" (sessions/families/refresh tokens {before} -> {after})")


def concurrent_logins(driver):
    """Two logins of one credential racing on the two nodes: whatever the order, the stored
    counter ends at the higher of the two (the conditional UPDATE never lets it go back), and
    at least one login is accepted."""
    for round_number in range(6):
        first = browser_assertion(driver, NODE_A, "bob")
        second = browser_assertion(driver, NODE_A, "bob")
        counters = [json.loads(body) for body, _ in (first, second)]
        auth_data = [b64url_decode(c["response"]["authenticatorData"]) for c in counters]
        signed = [int.from_bytes(a[33:37], "big") for a in auth_data]
        statuses = {}
        barrier = threading.Barrier(2)

        def send(index, base, body, cookie):
            barrier.wait()
            statuses[index] = http("POST", base + "/api/login/verify", body, {"Content-Type": "application/json"},
                                   {"pk_login": cookie})[0]

        # The later assertion (higher counter) to node A, the earlier one to node B, at once.
        threads = [threading.Thread(target=send, args=(1, NODE_A, second[0], second[1])),
                   threading.Thread(target=send, args=(0, NODE_B, first[0], first[1]))]
        for thread in threads: thread.start()
        for thread in threads: thread.join()
        credential_id = counters[1]["rawId"]
        stored = int(sql("SELECT sign_count FROM passkey_credentials WHERE id = decode('"
                         + b64url_decode(credential_id).hex() + "', 'hex')"))
        check(statuses[1] == 200 and statuses[0] in (200, 401) and stored == max(signed),
              f"racing logins, round {round_number + 1}: counters {signed} answered {statuses[0]}/{statuses[1]},"
              f" stored {stored}")


def bad_input():
    """Oversized, truncated, wrong type, random bytes: clear 4xx, the server keeps serving, no row changes."""
    before = rows()
    json_type = {"Content-Type": "application/json"}
    cases = [
        ("oversized response body", "/api/login/verify", b"{" + b" " * 200_000 + b"}", json_type, {413}),
        ("oversized options body", "/api/register/options", json.dumps({"username": "x" * 10_000}).encode(), json_type, {413}),
        ("truncated JSON", "/api/register/options", b'{"username": "mallory"', json_type, {400}),
        ("truncated response", "/api/login/verify", b'{"id": "AAAA", "rawId": "AAAA", "type": "public-key", "response": {',
         json_type, {400}),
        ("wrong content type", "/api/register/options", b'{"username": "mallory"}', {"Content-Type": "text/plain"}, {415}),
        ("no content type", "/api/login/options", b"{}", {}, {415}),
        ("random bytes", "/api/login/verify", os.urandom(4096), json_type, {400}),
        ("random bytes as a registration", "/api/register/verify", os.urandom(4096), json_type, {400}),
        ("a response missing its members", "/api/register/verify", b'{"id": "AAAA", "type": "public-key"}', json_type, {400}),
        ("random bytes, binary type", "/api/register/verify", os.urandom(4096), {"Content-Type": "application/octet-stream"}, {415}),
        ("a JSON array", "/api/register/options", b"[1,2,3]", json_type, {400}),
        ("an overlong username", "/api/register/options", json.dumps({"username": "u" * 65}).encode(), json_type, {400}),
    ]
    for name, path, body, headers, expected in cases:
        for base in (NODE_A, NODE_B):
            cookies = {}
            if path == "/api/login/verify":
                cookies["pk_login"] = ceremony_cookie(base, "/api/login/options", {}, "pk_login")
            if path == "/api/register/verify":
                cookies["pk_reg"] = ceremony_cookie(base, "/api/register/options", {"username": "mallory"}, "pk_reg")
            status, answer = http("POST", base + path, body, headers, cookies)
            check(status in expected and isinstance(answer, dict) and answer.get("error"),
                  f"{name} at {base}: {status} with a message ({str(answer)[:60]})")
    # A verification whose ceremony cookie is forged.
    status, _ = http("POST", NODE_A + "/api/login/verify", b"{}", json_type, {"pk_login": "e30.AAAA"})
    check(status == 400, "a forged ceremony cookie is refused")
    status, _ = http("GET", NODE_A + "/api/me", cookies={"pk_session": "eyJ1c2VyIjoiQUEiLCJleHAiOjFlMTB9.AAAA"})
    check(status == 401, "a forged session cookie is refused")
    for base in (NODE_A, NODE_B):
        check(http("GET", base + "/healthz")[0] == 200, f"{base} still serves after the bad input")
    check(rows() == before, "bad input changed no row")


def sealed_node(driver):
    """Node C runs with CHALLENGE_MODE=sealed: no challenge row is written; the sealed challenge
    rides in the ceremony cookie, answers once, and a tampered one is refused."""
    node_c = os.environ["NODE_C"]
    challenges_before = int(sql("SELECT count(*) FROM passkey_challenges"))
    driver.get(node_c + "/#no-autofill")
    WebDriverWait(driver, TIMEOUT).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state"))
    if driver.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "signed-in":
        sign_out(driver)
    driver.find_element(By.ID, "new-username").send_keys("carol")
    click(driver, "register")
    wait_state(driver, "signed-in")
    check("carol" in status_text(driver), "sealed mode: registration on node C")
    sign_out(driver)
    driver.find_element(By.ID, "username").send_keys("carol")
    click(driver, "login")
    wait_state(driver, "signed-in")
    check(last_login(driver) == "username", "sealed mode: username-first login on node C")
    check(int(sql("SELECT count(*) FROM passkey_challenges")) == challenges_before,
          "sealed mode wrote no challenge row")
    sign_out(driver)
    body, cookie = browser_assertion(driver, node_c, "carol")
    check(http("POST", node_c + "/api/login/verify", body, {"Content-Type": "application/json"},
               {"pk_login": cookie})[0] == 200, "sealed mode: a login through raw HTTP")
    check(http("POST", node_c + "/api/login/verify", body, {"Content-Type": "application/json"},
               {"pk_login": cookie})[0] == 400, "sealed mode: the same sealed challenge is refused the second time")
    if os.environ.get("FAILED_CEREMONIES_DIR"):
        # Node C recorded the refusal: the token was already used, so nothing is outstanding.
        newest = max(recordings("challenge"), key=os.path.getmtime)
        status, output = replay_explain(newest)
        check(status == 0 and "expected reject(challenge), got reject(challenge)" in output,
              f"sealed mode: the recorded refusal replays as reject(challenge) ({os.path.basename(newest)})")


def crash_mid_ceremony(driver):
    """kill -9 of node A between options and verification: the challenge it committed is in the
    database, so node B finishes the ceremony; nothing committed is lost."""
    before = rows()
    open_page(driver, NODE_A)
    body, cookie = browser_assertion(driver, NODE_A, "bob")
    pid = int(os.environ["NODE_A_PID"])
    os.kill(pid, signal.SIGKILL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
            time.sleep(0.1)
        except ProcessLookupError:
            break
    check(http("GET", NODE_B + "/healthz")[0] == 200, "node B serves after node A was killed")
    status, answer = http("POST", NODE_B + "/api/login/verify", body, {"Content-Type": "application/json"},
                          {"pk_login": cookie})
    check(status == 200 and answer.get("username") == "bob", f"node B finished the ceremony node A began ({status})")
    check(rows() == before, "no committed row was lost")


def main():
    driver = make_driver()
    try:
        if os.environ.get("E2E_OLD_CREDENTIAL_TABLE"):
            columns = sql("SELECT string_agg(column_name, ',' ORDER BY column_name) FROM information_schema.columns"
                          " WHERE table_name = 'passkey_credentials' AND column_name IN ('discoverable', 'prf_enabled')")
            check(columns == "discoverable,prf_enabled",
                  "the nodes' migration added the extension columns to the credential table made before them")
        browser_flows(driver)
        two_nodes_same_response(driver)
        if os.environ.get("FAILED_CEREMONIES_DIR"):
            failed_ceremonies_replayed(driver)
            prf_output_not_recorded(driver)
        overtaken_login(driver)
        overtaken_login(driver, "/api/token/login/verify")
        concurrent_logins(driver)
        if os.environ.get("NODE_C"):
            sealed_node(driver)
        bad_input()
        crash_mid_ceremony(driver)
    except Exception as error:
        print(f"FAIL {type(error).__name__}: {error}", flush=True)
        try:
            driver.save_screenshot(os.environ.get("E2E_SCREENSHOT", "/tmp/passkey-e2e-failure.png"))
        except Exception:
            pass
        return 1
    finally:
        driver.quit()
    print(f"passkey server end to end: {sum(ok for ok, _ in results)} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
