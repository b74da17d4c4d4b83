// Planted bugs: each compile-time variant of the metadata kernel with one realistic bug must be
// caught by the GPU differential suite's fixed corpus (the corpus MetadataCudaVsReference runs).
// A race may need more than one pass, so the corpus is run up to three times before giving up.

#include <gtest/gtest.h>

#include <iostream>

#include "qsa/backends/planted.hpp"
#include "support/differential.hpp"
#include "support/gpu_guard.hpp"

namespace qsa {
namespace {

class MetadataCudaPlantedBugs : public ::testing::TestWithParam<backends::PlantedBug> {};

TEST_P(MetadataCudaPlantedBugs, IsCaughtByTheDifferentialCorpus) {
  QSA_SKIP_WITHOUT_GPU();
  const backends::PlantedBug& bug = GetParam();
  const int size = testing::corpus_size(200);
  const std::vector<testing::CorpusCase> corpus = testing::differential_corpus(/*seed=*/1, size, size);
  auto backend = backends::make_planted_backend(bug.name);
  ASSERT_NE(backend, nullptr) << bug.name;
  for (int pass = 1; pass <= 3; ++pass) {
    for (size_t i = 0; i < corpus.size(); ++i) {
      if (const auto failure = testing::differential_failure(*backend, corpus[i].input)) {
        std::cout << "KILLED " << bug.name << " (pass " << pass << ", case " << i + 1 << "/" << corpus.size() << ", "
                  << corpus[i].origin << "): " << *failure << "\n";
        return;
      }
    }
  }
  ADD_FAILURE() << "SURVIVED " << bug.name << ": " << bug.description << " (" << 3 * corpus.size()
                << " differential runs)";
}

INSTANTIATE_TEST_SUITE_P(Variants, MetadataCudaPlantedBugs, ::testing::ValuesIn(backends::planted_cuda_metadata_bugs()),
                         [](const ::testing::TestParamInfo<backends::PlantedBug>& param_info) {
                           std::string name;
                           for (char ch : param_info.param.name.substr(13))
                             name += ch == '-' ? '_' : ch;  // drop "cuda-planted-"
                           return name;
                         });

}  // namespace
}  // namespace qsa
