#pragma once
// The exit codes of every qsacheck command (docs/json-schema.md, "Errors and exit codes"): a
// campaign's report maps to one of them (CheckReport::exit_code), and the CLI exits with it.

namespace qsa::engine {

inline constexpr int kExitOk = 0;          // every check ran and agreed
inline constexpr int kExitMismatch = 1;    // a disagreement or a broken invariant
inline constexpr int kExitUsage = 2;       // bad arguments or bad input
inline constexpr int kExitIncomplete = 3;  // what ran passed, but some checks could not run (see "not run")

}  // namespace qsa::engine
