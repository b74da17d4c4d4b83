#pragma once
// The Azure LLM inference traces of 2023 (Splitwise, Patel et al., ISCA 2024; CC-BY-4.0), fitted
// offline by traces/tools/fit_azure.py: prompt and output length tables and the arrival rate.
// The figures live in the code; the project never reads the trace files at run time.
// docs/workloads.md gives the method and the numbers.

#include <cstdint>

#include "qsa/traces/length_table.hpp"

namespace qsa::traces {

struct TraceFit {
  LengthTable prompt_tokens;    // ContextTokens
  LengthTable output_tokens;    // GeneratedTokens
  int64_t requests_per_ks = 0;  // mean arrival rate, requests per 1000 s
  int64_t rows = 0;             // requests in the trace
};

/// AzureLLMInferenceTrace_code.csv: 8819 requests in 3436 s (2.566 req/s), long prompts, short outputs.
const TraceFit& azure_code_fit();

/// AzureLLMInferenceTrace_conv.csv: 19366 requests in 3502 s (5.530 req/s).
const TraceFit& azure_conv_fit();

}  // namespace qsa::traces
