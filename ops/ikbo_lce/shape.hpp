#pragma once
// The IKBO LCE operand shape (docs/ikbo_lce.md): W[M, K_user + K_cand], E_user[U, K_user, N], E_cand[B, K_cand, N],
// Y[B, M, N]. The config carries it as the generic named shape of each case (/workload/shape, one object or a list);
// lce_shape() reads a case's.
#include <cstdint>

#include "config/config.hpp"

namespace gpubench {

/// LCE operand shape: the reference shape (FBGEMM's IKBO benchmark) is M=433, N=256, K_user=1178, K_cand=866.
struct LceShape {
  int64_t M = 433;       ///< compressed output embeddings (rows of W)
  int64_t N = 256;       ///< embedding dimension
  int64_t K_user = 1178; ///< user embeddings per request
  int64_t K_cand = 866;  ///< candidate embeddings per candidate
};

/// The LCE shape of a config's generic shape. Throws InputError when a parameter is missing.
inline LceShape lce_shape(const Shape& s) { return {s.at("M"), s.at("N"), s.at("K_user"), s.at("K_cand")}; }

}  // namespace gpubench
