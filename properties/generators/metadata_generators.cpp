#include "generators/metadata_generators.hpp"

#include <ostream>

#include "generators/rapidcheck_choice.hpp"
#include "qsa/traces/edge_batch_generator.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/rng.hpp"

namespace qsa {

void showValue(const MetadataInput& input, std::ostream& os) {
  os << traces::metadata_input_to_json(input).dump() << "\n  block_table layout: rows " << input.block_table.rows
     << ", cols " << input.block_table.cols << ", row_stride " << input.block_table.row_stride << ", col_stride "
     << input.block_table.col_stride << ", storage " << input.block_table.storage.size();
}

}  // namespace qsa

namespace qsa::testing {

rc::Gen<MetadataInput> metadata_inputs(std::optional<CacheKind> kind) {
  return rc::gen::exec([kind] {
    RapidCheckChoice choice;
    traces::EdgeBatchOptions options;
    options.kind = kind;
    options.max_table_cols = 2048;
    return traces::edge_metadata_batch(choice, options).input;
  });
}

MetadataInput sample_metadata_input(uint64_t seed, int index, int size, std::optional<CacheKind> kind) {
  const rc::Random random(traces::Rng::mix(seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(index + 1)));
  return metadata_inputs(kind)(random, size).value();
}

}  // namespace qsa::testing
