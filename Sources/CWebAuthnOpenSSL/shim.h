// The libcrypto headers the crypto layer uses, plus static inline wrappers for the
// macros and variadic functions Swift cannot call. A system-library target cannot
// compile C files, so every shim lives here as `static inline`.
#ifndef CWEBAUTHN_OPENSSL_SHIM_H
#define CWEBAUTHN_OPENSSL_SHIM_H

#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/ecdsa.h>

/// `EVP_PKEY_PUBLIC_KEY` is a macro built from other macros; Swift cannot see it.
static inline int cwebauthn_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

/// `EVP_PKEY_KEYPAIR`, for the test authenticator's seeded keys.
static inline int cwebauthn_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }

#endif
