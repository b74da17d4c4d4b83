#include "generators/invalid_inputs.hpp"

#include "generators/metadata_generators.hpp"
#include "generators/rapidcheck_choice.hpp"
#include "qsa/traces/invalid_batch.hpp"

namespace qsa::testing {

rc::Gen<MetadataInput> possibly_invalid_metadata_input() {
  return rc::gen::exec([] {
    MetadataInput in = *metadata_inputs();
    if (!*rc::gen::arbitrary<bool>()) return in;
    // An unknown kind (SPEC 1.4 rule 1) only here: the campaign's inputs cross plugin and worker
    // boundaries, which carry known kinds only. Every other rule as the campaign breaks it.
    if (*rc::gen::inRange(0, 17) == 0) {
      in.cache.kind = static_cast<CacheKind>(*rc::gen::inRange(3, 9));
      return in;
    }
    RapidCheckChoice choice;
    traces::break_one_rule(choice, &in);
    return in;
  });
}

}  // namespace qsa::testing
