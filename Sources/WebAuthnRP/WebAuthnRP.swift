// The ceremonies module; filled in by the ceremonies issue.
@_exported import WebAuthnCoding
