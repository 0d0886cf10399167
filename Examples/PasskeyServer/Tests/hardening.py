#!/usr/bin/env python3
"""The passkey server under faults and hostile clients (issue 29), over raw HTTP and sockets on
127.0.0.1, with a software passkey whose signature counter stays 0 (softauth.py). It starts its
own nodes (the binary run-e2e.sh built) on the database run-e2e.sh started, stops and restarts
that database, and stops everything it started. Every check is bounded in time.

Environment (from run-e2e.sh): PASSKEY_BINARY, DATABASE_URL, PSQL_URL, E2E_WORK (logs),
E2E_PG (a script: `E2E_PG stop|start|restart`), E2E_SESSION_KEY; HARDENING_ONLY (optional):
comma-separated names of the steps to run.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from softauth import SoftPasskey, post_json, request

BINARY = os.environ["PASSKEY_BINARY"]
WORK = os.environ["E2E_WORK"]
results = []
nodes = []


def check(condition, what):
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        raise AssertionError(what)


def sql(query):
    out = subprocess.run(["psql", os.environ["PSQL_URL"], "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", query],
                         check=True, capture_output=True, text=True, timeout=30)
    return out.stdout.strip()


def pg(action):
    subprocess.run([os.environ["E2E_PG"], action], check=True, timeout=90, capture_output=True)


def postgres_pids():
    """The cluster's postmaster and its child processes (run-e2e.sh's, in E2E_WORK/pgdata)."""
    with open(os.path.join(WORK, "pgdata", "postmaster.pid")) as handle:
        postmaster = int(handle.readline())
    children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True, timeout=10).stdout.split()
    return [postmaster] + [int(pid) for pid in children]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    """A server process on 127.0.0.1:port; `base` (http://localhost:port) is also its page's origin."""

    def __init__(self, name, origins=None, port=None, **env):
        self.name = name
        self.port = port or free_port()
        self.base = f"http://localhost:{self.port}"
        self.env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(self.port), "RP_ID": "localhost",
                    "ORIGINS": ",".join(origins or [self.base]), "DATABASE_URL": os.environ["DATABASE_URL"],
                    "SESSION_KEY": os.environ["E2E_SESSION_KEY"], "NODE_NAME": name, "LOG_LEVEL": "info",
                    **{k: str(v) for k, v in env.items()}}
        self.log_path = os.path.join(WORK, f"node-{name}.log")
        self.process = None
        nodes.append(self)
        self.start()

    def start(self):
        log = open(self.log_path, "a")
        self.process = subprocess.Popen([BINARY], env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if request("GET", self.base + "/healthz", timeout=1)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"node {self.name} did not become ready")

    def stop(self, limit=30):
        """SIGTERM; the seconds until the process exited (SIGKILL after `limit`)."""
        if self.process is None or self.process.poll() is not None:
            return 0.0
        started = time.time()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return time.time() - started

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as handle:
            return handle.read()


def me(base, session):
    return request("GET", base + "/api/me", cookies={"pk_session": session} if session else None)


def sessions_of(passkey):
    return int(sql(f"SELECT count(*) FROM passkey_sessions WHERE user_handle = decode('{passkey.user_handle.hex()}', 'hex')"))


def timed(step, *args):
    started = time.time()
    step(*args)
    print(f"     ({step.__name__}{args if args else ''}: {time.time() - started:.1f} s)", flush=True)


# --- 1. One captured login, several nodes: accepted exactly once ------------------------------

def replay_across_nodes(mode):
    """Two nodes on one database; a passkey whose counter stays 0; one login response with its
    ceremony cookie replayed sequentially on both nodes, 50 concurrent copies, and after a node
    restarted: one session each time (HTTP 200s and session rows)."""
    ports = [free_port(), free_port()]
    origins = [f"http://localhost:{p}" for p in ports]
    env = {"CHALLENGE_MODE": "sealed", "SEALING_KEY": os.urandom(32).hex()} if mode == "sealed" else {}
    first, second = (Node(f"{mode}-{i + 1}", origins, port, **env) for i, port in enumerate(ports))
    passkey = SoftPasskey()
    user = f"replay-{mode}"
    status, answer, _ = passkey.register(first.base, user)
    check(status == 200, f"{mode}: registration of a signCount-0 passkey ({status} {answer})")

    def verify(base, body, cookie):
        return post_json(base + "/api/login/verify", body, {"pk_login": cookie})[0]

    body, cookie = passkey.login_capture(first.base, user)
    before = sessions_of(passkey)
    statuses = [verify(node.base, body, cookie) for node in (first, second, first, second)]
    check(statuses.count(200) == 1 and sessions_of(passkey) == before + 1,
          f"{mode}: one login replayed on both nodes in turn is accepted once ({statuses})")

    body, cookie = passkey.login_capture(second.base, user)
    before = sessions_of(passkey)
    barrier = threading.Barrier(50)
    statuses = []

    def send(node):
        barrier.wait()
        statuses.append(verify(node.base, body, cookie))
    threads = [threading.Thread(target=send, args=((first, second)[i % 2],)) for i in range(50)]
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    check(statuses.count(200) == 1 and sessions_of(passkey) == before + 1,
          f"{mode}: 50 concurrent copies on two nodes: accepted once ({statuses.count(200)} of {len(statuses)})")

    body, cookie = passkey.login_capture(first.base, user)
    before = sessions_of(passkey)
    statuses = [verify(first.base, body, cookie)]
    first.stop()
    first.start()
    statuses += [verify(first.base, body, cookie), verify(second.base, body, cookie)]
    check(statuses == [200, 400, 400] and sessions_of(passkey) == before + 1,
          f"{mode}: accepted, then refused by the restarted node and by the other ({statuses})")

    if mode == "sealed":
        # Bodies that say nothing neither use up the token nor add rows to the replay record.
        body, cookie = passkey.login_capture(first.base, user)
        rows = int(sql("SELECT count(*) FROM passkey_sealed_used"))
        statuses = [post_json(first.base + "/api/login/verify", {}, {"pk_login": cookie})[0] for _ in range(20)]
        check(set(statuses) == {400} and int(sql("SELECT count(*) FROM passkey_sealed_used")) == rows,
              f"sealed: 20 empty bodies are refused before the token is marked ({set(statuses)}, no row)")
        check(verify(second.base, body, cookie) == 200 and int(sql("SELECT count(*) FROM passkey_sealed_used")) == rows + 1,
              "sealed: the real response is then accepted, and marks one row")
    first.stop()
    second.stop()


# --- 3. Faults: the database goes away --------------------------------------------------------

def database_outage():
    """During an outage (the database stalled, then stopped) every request that needs the
    database gets 503 within its deadline, the node recovers when it answers again, and SIGTERM
    stops the node within the bounded shutdown (graceful, then forced)."""
    node = Node("outage", DB_TIMEOUT_MS=1000, SHUTDOWN_GRACE_SECONDS=2, SHUTDOWN_FORCE_SECONDS=2)
    passkey = SoftPasskey()
    check(passkey.register(node.base, "outage-user")[0] == 200, "outage: a registration before the outage")
    # A database that stops answering (a hung host): its sockets stay open and nothing comes back,
    # so only the call's deadline answers, and the node's connections must come back after it.
    stalled = postgres_pids()
    try:
        for pid in stalled: os.kill(pid, signal.SIGSTOP)
        answers = []
        for _ in range(4):
            started = time.time()
            status = post_json(node.base + "/api/login/options", {"username": "outage-user"}, timeout=15)[0]
            answers.append((status, time.time() - started))
        check(all(status == 503 for status, _ in answers) and max(t for _, t in answers) < 3.0,
              f"outage: with the database stalled, every request that needs it gets 503 at its 1 s deadline"
              f" ({[f'{status} after {t:.1f} s' for status, t in answers]})")
    finally:
        for pid in stalled: os.kill(pid, signal.SIGCONT)
    check(passkey.login(node.base, "outage-user")[0] == 200, "outage: once it answers again, logins succeed")
    pg("stop")
    try:
        answers = []
        for _ in range(6):
            started = time.time()
            status = post_json(node.base + "/api/login/options", {"username": "outage-user"}, timeout=15)[0]
            answers.append((status, time.time() - started))
        check(all(status == 503 for status, _ in answers) and max(t for _, t in answers) < 3.0,
              f"outage: every request that needs the database gets 503 within its 1 s deadline (slowest"
              f" {max(t for _, t in answers):.1f} s)")
        # Not only the ceremonies: the session cookie's lookup (another store, another statement) too.
        started = time.time()
        status = request("GET", node.base + "/api/me", cookies={"pk_session": "A" * 43}, timeout=15)[0]
        check(status == 503 and time.time() - started < 3.0,
              f"outage: a session lookup gets 503 within its deadline ({status} after {time.time() - started:.1f} s)")
        check(request("GET", node.base + "/healthz", timeout=5)[0] == 200, "outage: the node keeps serving what needs no database")
        check(node.process.poll() is None, "outage: the node is still running")
        # SIGTERM with requests in flight (each waiting on a database that is down).
        in_flight = []

        def send():
            try:
                in_flight.append(post_json(node.base + "/api/login/options", {"username": "outage-user"}, timeout=15)[0])
            except OSError:
                in_flight.append(None)
        threads = [threading.Thread(target=send) for _ in range(4)]
        for thread in threads: thread.start()
        time.sleep(0.3)
        seconds = node.stop(limit=30)
        for thread in threads: thread.join()
        check(in_flight == [503] * 4, f"outage: requests in flight at SIGTERM are answered before the node stops ({in_flight})")
        check(seconds < 7.0, f"outage: SIGTERM stops the node within grace + force (2 + 2 s) while the database is down"
                             f" ({seconds:.1f} s, exit status {node.process.returncode})")
        # A node started while the database is down waits in its schema migration; SIGTERM stops it too.
        env = {**node.env, "PORT": str(free_port()), "NODE_NAME": "outage-start"}
        with open(os.path.join(WORK, "node-outage-start.log"), "a") as log:
            process = subprocess.Popen([BINARY], env=env, stdout=log, stderr=subprocess.STDOUT)
        time.sleep(1.0)
        started = time.time()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        seconds = time.time() - started
        # A crash's backtrace can take longer than the watchdog, whose exit(1) would then hide
        # it: the log must say the node stopped (a logged exit) and hold no fatal error.
        with open(os.path.join(WORK, "node-outage-start.log"), encoding="utf-8", errors="replace") as log:
            text = log.read()
        check(seconds < 7.0 and process.returncode in (0, 1) and "stopped" in text and "Fatal error" not in text,
              f"outage: a node still starting (migration waiting) stops on SIGTERM too, without a crash"
              f" ({seconds:.1f} s, exit status {process.returncode})")
    finally:
        pg("start")


def fast_restarts():
    """Logins in flight while PostgreSQL restarts five times: every request is answered (none
    waits past the deadline), and logins succeed again once it is back."""
    node = Node("restarts", DB_TIMEOUT_MS=2000)
    passkey = SoftPasskey()
    check(passkey.register(node.base, "restart-user")[0] == 200, "restarts: a registration first")
    stop = threading.Event()
    outcomes = {"answered": 0, "ok": 0, "503": 0, "slowest": 0.0, "unanswered": 0}
    lock = threading.Lock()

    def worker():
        while not stop.is_set():
            started = time.time()
            try:
                status = post_json(node.base + "/api/login/options", {"username": "restart-user"}, timeout=10)[0]
            except OSError:
                status = None
            with lock:
                if status is None:
                    outcomes["unanswered"] += 1
                    continue
                outcomes["answered"] += 1
                if status in (200, 503):
                    outcomes["ok" if status == 200 else "503"] += 1
                outcomes["slowest"] = max(outcomes["slowest"], time.time() - started)
    threads = [threading.Thread(target=worker) for _ in range(6)]
    for thread in threads: thread.start()
    try:
        for _ in range(5):
            time.sleep(1.0)
            pg("restart")
    finally:
        time.sleep(1.0)
        stop.set()
        for thread in threads: thread.join()
    check(outcomes["unanswered"] == 0 and outcomes["slowest"] < 5.0,
          f"restarts: every request answered within its deadline ({outcomes})")
    deadline = time.time() + 15
    while time.time() < deadline and passkey.login(node.base, "restart-user")[0] != 200:
        time.sleep(0.5)
    check(passkey.login(node.base, "restart-user")[0] == 200 and node.process.poll() is None,
          "restarts: the node lives through them, and logins succeed once the database is back")
    hits = node.log().count("passed its deadline")
    print(f"     database calls that passed their deadline during the restarts: {hits}", flush=True)
    node.stop()


# --- 3. Slow clients and connection limits ----------------------------------------------------

def closed_after(sock, limit, trickle=b"", every=0.5):
    """Seconds until the server closed the connection (None if still open after `limit`),
    sending one byte of `trickle` every `every` seconds meanwhile. Answers are read and ignored."""
    started = time.time()
    sock.settimeout(every)
    position = 0
    while time.time() - started < limit:
        try:
            data = sock.recv(4096)
            if not data:
                return time.time() - started
        except socket.timeout:
            pass
        except OSError:
            return time.time() - started
        if position < len(trickle):
            try:
                sock.sendall(trickle[position:position + 1])
            except OSError:
                return time.time() - started
            position += 1
    return None


def connect(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    return sock


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def slow_clients():
    node = Node("slow", IDLE_TIMEOUT_SECONDS=2, REQUEST_READ_TIMEOUT_SECONDS=3, MAX_CONNECTIONS=16)
    seconds = closed_after(connect(node.port), 8)
    check(seconds is not None and seconds < 4, f"a connection that sends nothing is closed by the idle timeout ({seconds})")
    sock = connect(node.port)
    sock.sendall(b"POST /api/login/options HTTP/1.1\r\nHost: localhost\r\n")
    seconds = closed_after(sock, 8, trickle=b"X-Slow: " + b"a" * 40)
    check(seconds is not None and seconds < 4, f"a request head trickled byte by byte is closed ({seconds})")
    sock = connect(node.port)
    sock.sendall(b"GET /\r\n")
    seconds = closed_after(sock, 8)
    check(seconds is not None and seconds < 4, f"a bare HTTP/0.9 request does not hold its connection ({seconds})")
    sock = connect(node.port)
    sock.sendall(b"POST /api/login/options HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 400\r\n\r\n{")
    seconds = closed_after(sock, 10, trickle=b" " * 100, every=0.4)
    check(seconds is not None and seconds < 5, f"a body trickled within the idle timeout is cut at the 3 s read deadline ({seconds})")

    # The connection cap: 16 open connections, then a 17th waits in the backlog (the node does
    # not accept, and does not spin) until the idle timeout frees places.
    held = [connect(node.port) for _ in range(16)]
    time.sleep(0.3)
    cpu_before = cpu_seconds(node.process.pid)
    started = time.time()
    status = request("GET", node.base + "/healthz", timeout=8)[0]
    waited = time.time() - started
    cpu = cpu_seconds(node.process.pid) - cpu_before
    check(status == 200 and 1.0 < waited < 6, f"at the cap of 16 connections a 17th waits until places free ({waited:.1f} s)")
    check(cpu < 0.5 * waited + 0.2, f"the node does not spin while at its cap ({cpu:.2f} s CPU in {waited:.1f} s)")
    for sock in held: sock.close()
    node.stop()


# --- 3. Sessions, passkey changes, cross-site requests ----------------------------------------

def sessions_revocable():
    node = Node("sessions", FRESH_SIGN_IN_SECONDS=3)
    base = node.base
    first = SoftPasskey()
    status, _, jar = first.register(base, "sess-user")
    stolen = jar["pk_session"]
    check(status == 200 and me(base, stolen)[0] == 200, "sessions: registration signs in")
    check(post_json(base + "/api/logout", {}, {"pk_session": stolen})[0] == 200 and me(base, stolen)[0] == 401,
          "sessions: after logout a copy of the session cookie no longer works")

    one, two = (first.login(base, "sess-user")[2]["pk_session"] for _ in range(2))
    status, answer, _ = post_json(base + "/api/logout-all", {}, {"pk_session": one})
    check(status == 200 and answer.get("sessionsEnded") == 2 and me(base, two)[0] == 401 and me(base, one)[0] == 401,
          f"sessions: sign out everywhere ends the other device's session too ({answer})")

    session = first.login(base, "sess-user")[2]["pk_session"]
    for headers, want, what in (({"Origin": "http://evil.example"}, 403, "another Origin"),
                                ({"Sec-Fetch-Site": "cross-site"}, 403, "Sec-Fetch-Site: cross-site")):
        check(post_json(base + "/api/logout", {}, {"pk_session": session}, headers)[0] == want and me(base, session)[0] == 200,
              f"sessions: a logout with {what} is refused ({want}) and the session lives")
    status = request("POST", base + "/api/logout", b"x=1", {"Content-Type": "application/x-www-form-urlencoded"},
                     {"pk_session": session})[0]
    check(status == 415 and me(base, session)[0] == 200, f"sessions: a form-encoded logout is refused ({status})")

    # A session older than FRESH_SIGN_IN_SECONDS cannot change the account's passkeys.
    time.sleep(3.3)
    second = SoftPasskey()
    status, answer, _ = second.register(base, session=session)
    check(status == 403 and answer.get("reauthenticate") is True, f"sessions: an old session cannot add a passkey ({status} {answer})")
    status, answer, _ = request("DELETE", f"{base}/api/passkeys/{first_id(first)}", cookies={"pk_session": session})
    check(status == 403 and answer.get("reauthenticate") is True, f"sessions: an old session cannot delete a passkey ({status})")
    fresh = first.login(base, "sess-user")[2]["pk_session"]
    check(second.register(base, session=fresh)[0] == 200, "sessions: after a fresh passkey sign-in, adding a passkey works")

    by_second = second.login(base, "sess-user")[2]["pk_session"]
    status, answer, _ = request("DELETE", f"{base}/api/passkeys/{first_id(second)}", cookies={"pk_session": fresh})
    check(status == 200 and me(base, by_second)[0] == 401 and me(base, fresh)[0] == 200,
          "sessions: deleting a passkey ends the sessions it signed in, not the others")
    status, answer, _ = request("DELETE", f"{base}/api/passkeys/{first_id(first)}", cookies={"pk_session": fresh})
    check(status == 200 and answer.get("signedOut") is True and me(base, fresh)[0] == 401,
          "sessions: deleting the last passkey leaves no session of the account")
    node.stop()


def first_id(passkey):
    from softauth import b64url
    return b64url(passkey.credential_id)


def passkey_cap():
    node = Node("cap")
    base = node.base
    keys = [SoftPasskey() for _ in range(33)]
    status, _, jar = keys[0].register(base, "cap-user")
    session = jar["pk_session"]
    statuses = [key.register(base, session=session)[0] for key in keys[1:31]]
    check(status == 200 and set(statuses) == {200}, "cap: 31 passkeys on one account")
    ceremonies = []
    for key in keys[31:33]:
        status, options, jar = post_json(base + "/api/register/options", {}, {"pk_session": session})
        ceremonies.append((key.create_response(options, base), jar["pk_reg"]))
    answers = []
    barrier = threading.Barrier(2)

    def send(response, cookie):
        barrier.wait()
        answers.append(post_json(base + "/api/register/verify", response, {"pk_session": session, "pk_reg": cookie})[0])
    threads = [threading.Thread(target=send, args=c) for c in ceremonies]
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    handle = keys[0].user_handle.hex()
    count = int(sql(f"SELECT count(*) FROM passkey_credentials WHERE user_handle = decode('{handle}', 'hex')"))
    check(sorted(answers) == [200, 409] and count == 32, f"cap: two registrations racing for the 32nd place: one wins ({answers}, {count})")
    check(post_json(base + "/api/register/options", {}, {"pk_session": session})[0] == 409, "cap: a 33rd is refused at its options")
    ids, page, sizes = [], me(base, session)[1], []
    while True:
        sizes.append(len(page["passkeys"]))
        ids += [p["id"] for p in page["passkeys"]]
        if "next" not in page:
            break
        page = request("GET", f"{base}/api/me?after={page['next']}", cookies={"pk_session": session})[1]
    check(len(ids) == 32 and len(set(ids)) == 32 and sizes == [10, 10, 10, 2], f"cap: the list comes in pages ({sizes})")
    status, options, _ = post_json(base + "/api/login/options", {"username": "cap-user"})
    check(status == 200 and len(options["allowCredentials"]) == 32, "cap: a login's options name at most 32 passkeys")
    node.stop()


def usernames():
    node = Node("names")
    base = node.base
    before = sql("SELECT count(*) FROM passkey_users") + "/" + sql("SELECT count(*) FROM passkey_credentials")
    long_name = "q\u0307" * 40   # 40 graphemes, 80 code points (no precomposed form)
    status, answer, _ = SoftPasskey().register(base, long_name)
    after = sql("SELECT count(*) FROM passkey_users") + "/" + sql("SELECT count(*) FROM passkey_credentials")
    check(status == 400 and after == before, f"names: 40 graphemes but 80 code points is refused as too long, no row ({status})")
    check(SoftPasskey().register(base, "q\u0307" * 32)[0] == 200, "names: exactly 64 code points is accepted")
    casey = SoftPasskey()
    check(casey.register(base, "Casey")[0] == 200, "names: Casey registers")
    check(post_json(base + "/api/register/options", {"username": "casey"})[0] == 409, "names: casey is the same name (case-folded)")
    status, answer, _ = casey.login(base, " CASEY ")
    check(status == 200 and answer.get("username") == "Casey", f"names: a login as CASEY signs in Casey ({answer})")
    check(SoftPasskey().register(base, "Zo\u00eb")[0] == 200 and post_json(base + "/api/register/options", {"username": "Zoe\u0308"})[0] == 409,
          "names: Zoë precomposed and decomposed are one name (NFC)")

    # Two registrations of one new name racing: one account, one credential, no orphan row.
    pending = []
    for _ in range(2):
        key = SoftPasskey()
        status, options, jar = post_json(base + "/api/register/options", {"username": "race-name"})
        pending.append((key.create_response(options, base), jar["pk_reg"]))
    answers = []
    barrier = threading.Barrier(2)

    def send(response, cookie):
        barrier.wait()
        answers.append(post_json(base + "/api/register/verify", response, {"pk_reg": cookie})[0])
    threads = [threading.Thread(target=send, args=p) for p in pending]
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    orphans = int(sql("SELECT count(*) FROM passkey_credentials c WHERE NOT EXISTS"
                      " (SELECT 1 FROM passkey_users u WHERE u.user_handle = c.user_handle)"))
    check(sorted(answers) == [200, 409] and orphans == 0, f"names: a race for one name: one account, no orphan credential ({answers})")
    for body in (b'{"username": "a", "username": "b"}', b'{"username": "a", "\\u0075sername": "b"}'):
        check(post_json(base + "/api/login/options", body)[0] == 400, f"options bodies refuse duplicate member names ({body.decode()})")

    # Look-alikes (UTS #39): NFKC folds fullwidth letters into Casey's name; a name mixing
    # scripts (a Cyrillic а among Latin letters) or holding an invisible character is refused;
    # a name in one other script is a name of its own.
    users = sql("SELECT count(*) FROM passkey_users")
    check(post_json(base + "/api/register/options", {"username": "\uff43\uff41\uff53\uff45\uff59"})[0] == 409,
          "names: fullwidth ｃａｓｅｙ is casey (NFKC)")
    for name in ("c\u0430sey", "\u0430lice", "casey\ufe0f"):
        status, answer, _ = SoftPasskey().register(base, name)
        check(status == 400, f"names: {name.encode('unicode_escape').decode()} (mixed scripts or invisible) is refused ({status})")
    check(sql("SELECT count(*) FROM passkey_users") == users, "names: no row for the refused names")
    check(SoftPasskey().register(base, "\u043a\u0435\u0439\u0441\u0438")[0] == 200, "names: кейси, all Cyrillic, registers")
    check(SoftPasskey().register(base, "\uff26\uff55\uff4c\uff4c")[0] == 200
          and sql("SELECT username || '/' || username_key FROM passkey_users WHERE username_key = 'full'") == "Full/full",
          "names: fullwidth Ｆｕｌｌ is stored as Full (NFKC), key full")
    status, options, _ = post_json(base + "/api/login/options", {"username": "\uff23\uff21\uff33\uff25\uff39"})
    check(status == 200 and len(options.get("allowCredentials", [])) == 1, "names: a login as ＣＡＳＥＹ finds Casey's passkey")
    node.stop()


def answers():
    """Every answer says nosniff; a body that stops short of its Content-Length is 400, not 413."""
    node = Node("answers")
    statuses = set()
    for method, path, body in (("GET", "/healthz", None), ("GET", "/", None), ("GET", "/nothing", None), ("GET", "/api/me", None),
                               ("POST", "/api/login/options", b"["), ("POST", "/oauth/token", b"grant_type=x")):
        sock = connect(node.port)
        head = f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        if body is not None:
            kind = "application/json" if path.startswith("/api") else "application/x-www-form-urlencoded"
            head += f"Content-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
        sock.sendall(head.encode() + b"\r\n" + (body or b""))
        answer = read_answer(sock)
        statuses.add(answer.split(b" ", 2)[1].decode() if answer.count(b" ") >= 2 else "")
        check(b"\r\nx-content-type-options: nosniff\r\n" in answer.split(b"\r\n\r\n", 1)[0].lower() + b"\r\n",
              f"{method} {path}: X-Content-Type-Options: nosniff ({answer[:12]!r})")
    check(statuses == {"200", "404", "401", "400"}, f"answers of every kind were checked ({statuses})")
    for path, kind in (("/api/login/options", "application/json"), ("/oauth/token", "application/x-www-form-urlencoded")):
        sock = connect(node.port)
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: {kind}\r\n"
                     "Content-Length: 400\r\n\r\n"
                     .encode() + b'{"user')
        sock.shutdown(socket.SHUT_WR)   # the client stops: the body ends 394 bytes short
        answer = read_answer(sock)
        check(answer.startswith(b"HTTP/1.1 400"), f"{path}: a body shorter than its Content-Length is 400, not 413 ({answer[:12]!r})")
    sock = connect(node.port)
    sock.sendall(b"POST /api/login/options HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n" + b" " * 5000)
    check(read_answer(sock).startswith(b"HTTP/1.1 413"), "a body that is too large is still 413")
    node.stop()


def read_answer(sock, limit=10):
    """Everything the server sends until it closes (or `limit` seconds)."""
    sock.settimeout(limit)
    data = b""
    try:
        while True:
            part = sock.recv(65536)
            if not part:
                break
            data += part
            if b"\r\n\r\n" in data and b"content-length: 0" in data.lower():
                break
    except OSError:
        pass
    sock.close()
    return data


def recordings_recounted():
    folder = tempfile.mkdtemp(dir=WORK)
    env = {"RECORD_FAILED_CEREMONIES_DIR": folder, "RECORD_FAILED_CEREMONIES_MAX_FILES": 3}
    pair = [Node("rec-1", **env), Node("rec-2", **env)]

    def fail(node):
        cookie = post_json(node.base + "/api/login/options", {})[2]["pk_login"]
        return post_json(node.base + "/api/login/verify", {"id": "AAAA"}, {"pk_login": cookie})[0]

    statuses = [fail(pair[i % 2]) for i in range(8)]
    files = [n for n in os.listdir(folder) if n.endswith(".json")]
    check(set(statuses) == {400} and len(files) == 3, f"recordings: two nodes sharing a folder keep its cap of 3 ({len(files)})")
    for name in files: os.remove(os.path.join(folder, name))
    fail(pair[0])
    check(len([n for n in os.listdir(folder) if n.endswith(".json")]) == 1, "recordings: an emptied folder records again at once")
    for node in pair: node.stop()
    shutil.rmtree(folder, ignore_errors=True)


def run_suite(name, checks):
    """Runs one script's checks against the nodes it starts: the first failure prints FAIL with its
    error, every node stops either way, and a pass prints the count. Returns the exit status."""
    started = time.time()
    try:
        checks()
    except Exception as error:
        print(f"FAIL {type(error).__name__}: {error}", flush=True)
        return 1
    finally:
        for node in nodes:
            node.stop(limit=15)
    print(f"passkey server {name}: {sum(results)} checks passed in {time.time() - started:.0f} s", flush=True)
    return 0


def hardening_checks():
    steps = [(replay_across_nodes, "store"), (replay_across_nodes, "sealed"), (usernames,), (passkey_cap,),
             (sessions_revocable,), (recordings_recounted,), (answers,), (slow_clients,), (database_outage,), (fast_restarts,)]
    # HARDENING_ONLY=name,name runs those steps only (Tests/mutate.py names the ones a mutant should fail).
    only = [name for name in os.environ.get("HARDENING_ONLY", "").split(",") if name]
    for step in steps:
        if not only or step[0].__name__ in only:
            timed(*step)


def main():
    return run_suite("hardening", hardening_checks)


if __name__ == "__main__":
    sys.exit(main())
