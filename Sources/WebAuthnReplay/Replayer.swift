// Replay of recorded ceremonies; filled in by the ceremonies issue.
import WebAuthnRP
