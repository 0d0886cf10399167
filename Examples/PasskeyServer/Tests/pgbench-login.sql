-- The SQL of one full login of the example server with challenges in PostgreSQL, as pgbench
-- runs it (run-load.sh, LOAD_PGBENCH=1): the five statements of Statements in
-- Sources/PasskeyServer/Stores/PostgresStores.swift, in the order a login sends them, each its
-- own transaction; with -D stored_challenges=0 the two challenge statements are left out, as a
-- server with sealed challenges (CHALLENGE_MODE=sealed) leaves them out. Client N logs in as user benchN with credential id int4send(N) (run-load.sh
-- renames the rows its HTTP run registered), so, as with passkey-load, no two clients share a
-- credential. The challenge is 8 random bytes and the issued state 420 bytes of text, the size
-- of a username-first login's IssuedChallenge JSON.
\set challenge random(1, 9223372036854775806)
-- options: the account and its credentials (LoginLookup), then the challenge (IssueChallenge)
SELECT u.user_handle, u.username, c.id, c.transports FROM passkey_users u
LEFT JOIN passkey_credentials c ON c.user_handle = u.user_handle
WHERE u.username_key = 'bench' || :client_id ORDER BY c.created_at;
\if :stored_challenges
INSERT INTO passkey_challenges (challenge, issued, expires_at)
VALUES (int8send(:challenge), repeat('x', 420), now() + interval '5 minutes')
ON CONFLICT (challenge) DO NOTHING RETURNING 1;
\endif
-- verification: consume the challenge, read the record, the conditional update
\if :stored_challenges
DELETE FROM passkey_challenges WHERE challenge = int8send(:challenge) RETURNING issued;
\endif
SELECT record, sign_count, backup_state, uv_initialized, prf_enabled FROM passkey_credentials
WHERE id = int4send(:client_id);
UPDATE passkey_credentials
SET sign_count = sign_count + 1, backup_state = true, uv_initialized = true, last_used_at = now(), prf_enabled = NULL
WHERE id = int4send(:client_id) AND (sign_count < sign_count + 1 OR (sign_count = 0 AND sign_count + 1 = 0))
RETURNING 1;
