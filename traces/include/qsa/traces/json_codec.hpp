#pragma once
// JSON encodings shared by `qsacheck eval` and the scenario files (docs/json-schema.md).

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "qsa/status.hpp"
#include "qsa/types.hpp"

namespace qsa::traces {

/// {"kind", "compress_ratio", "storage_block_size", "ring_capacity", "num_actual_tokens",
///  "query_start_loc", "seq_lens", "common_slot_mapping", "block_table", "request_capacity"?,
///  "reorder_batch_threshold"?}. Throws InputError for JSON that does not fit the schema; the
/// values themselves are checked later by qsa::validate().
MetadataInput metadata_input_from_json(const nlohmann::json& json);
nlohmann::json metadata_input_to_json(const MetadataInput& input);

/// {"status": "ok", "token_to_req": [...], ..., "k_work_metadata": [[r, w], ...], "num_decodes": n, ...}
/// as compact JSON text (keys sorted, no newline), streamed without building a JSON tree.
void write_metadata_output_json(std::ostream& out, const MetadataOutput& output);

/// {"status": "error", "field": ..., "index": ..., "rule": ..., "message": ...}
nlohmann::json error_to_json(const Error& error);

/// Block tables travel as a dense array of rows (strides are a memory layout, not content).
nlohmann::json block_table_to_json(const BlockTable& table);
BlockTable block_table_from_json(const nlohmann::json& rows, const std::string& field);

}  // namespace qsa::traces
