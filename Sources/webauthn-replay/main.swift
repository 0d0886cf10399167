import WebAuthnReplay
print("webauthn-replay: not yet implemented")
