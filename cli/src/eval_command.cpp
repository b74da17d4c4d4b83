// `qsacheck eval ...`: one operation on JSON input, JSON on stdout (docs/json-schema.md).

#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include "backend_choice.hpp"
#include "commands.hpp"
#include "number_options.hpp"
#include "output.hpp"
#include "qsa/backend_interface.hpp"
#include "qsa/ring_capacity.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/step_json.hpp"
#include "qsa/validate.hpp"
#include "worker_options.hpp"

namespace qsa::cli {
namespace {

// An unknown backend name is bad usage, found before any input is read.
void check_backend_name(const std::string& name) {
  if (!BackendRegistry::global().create(name)) {
    Error error;
    open_backend(name, &error);
    throw InputError(error);
  }
}

int eval_metadata(const std::string& input_path, const std::string& backend_name) {
  Error error;
  auto backend = open_backend(backend_name, &error);
  if (!backend) return report_error(error);
  MetadataInput input;
  {
    // One statement each, so the text is freed before the tree is converted, the tree before the run.
    const nlohmann::json json = traces::parse_json(read_input(input_path));
    input = traces::metadata_input_from_json(json);
  }
  MetadataOutput output = make_poisoned_metadata_output(input);
  const Status status = backend->build_metadata(input, &output, &error);
  if (status != Status::kOk) {
    if (error.field.empty()) error = Error{"backend", -1, to_string(status), backend_name + " failed"};
    return report_error(error);
  }
  traces::write_metadata_output_json(std::cout, output);
  std::cout << "\n" << std::flush;
  return kExitOk;
}

int eval_step(const std::string& input_path, const std::string& backend_name, bool with_pooled) {
  Error error;
  auto backend = open_backend(backend_name, &error);
  if (!backend) return report_error(error);
  traces::StepCase step;
  {
    const nlohmann::json json = traces::parse_json(read_input(input_path));
    step = traces::step_case_from_json(json);
  }
  // Validate before sizing the output, so an invalid request allocates nothing large.
  if (validate_step(step.input, step.caches, &error) != Status::kOk) return report_error(error);
  StepOutput output = make_poisoned_step_output(step.input);
  std::vector<reference::PooledGroup> pooled;
  const Status status = with_pooled ? reference::step_update(step.input, &step.caches, &output, &error, &pooled)
                                    : backend->step_update(step.input, &step.caches, &output, &error);
  if (status != Status::kOk) {
    if (error.field.empty()) error = Error{"backend", -1, to_string(status), backend_name + " failed"};
    return report_error(error);
  }
  print_json(traces::step_result_to_json(step.input, step.caches, output, with_pooled ? &pooled : nullptr));
  return kExitOk;
}

int eval_ring_capacity(int64_t compress_ratio, int64_t drafts, int64_t block_size, const std::string& rule) {
  int64_t capacity = 0;
  Error error;
  const RingRule ring_rule = rule == "widen" ? RingRule::kWiden : RingRule::kSeed;
  if (ring_capacity(compress_ratio, drafts, block_size, ring_rule, &capacity, &error) != Status::kOk)
    return report_error(error);
  print_json({{"status", "ok"}, {"capacity", capacity}});
  return kExitOk;
}

}  // namespace

void add_eval_commands(CLI::App& app, CommandJob* job) {
  CLI::App* eval = app.add_subcommand("eval", "Run one operation on JSON input and print the result as JSON");
  eval->require_subcommand(1);

  auto* metadata = eval->add_subcommand(
      "metadata",
      "Build the per-step metadata of SPEC 2 for one cache group.\n"
      "Input: {\"kind\": \"compressed\"|\"ring\"|\"passthrough\", \"compress_ratio\", \"storage_block_size\",\n"
      "\"ring_capacity\", \"num_actual_tokens\", \"query_start_loc\", \"seq_lens\", \"common_slot_mapping\",\n"
      "\"block_table\": [[...]], \"request_capacity\"?, \"reorder_batch_threshold\"?}.\n"
      "Example: echo '{\"kind\":\"passthrough\",\"num_actual_tokens\":6,\"query_start_loc\":[0,2,4],\n"
      "\"seq_lens\":[2,5],\"common_slot_mapping\":[10,11,20,21,-1,-1],\"block_table\":[[],[]]}' | qsacheck eval "
      "metadata");
  auto metadata_input = std::make_shared<std::string>();
  auto metadata_backend = std::make_shared<std::string>("reference");
  metadata->add_option("--input", *metadata_input, "JSON file (standard input when omitted or -; at most 64 MiB)");
  metadata->add_option("--backend", *metadata_backend, "Backend that builds the metadata")->capture_default_str();
  auto metadata_worker = std::make_shared<WorkerOptions>();
  add_worker_options(metadata, metadata_worker.get());
  metadata->callback([=] {
    *metadata_backend = apply_worker_options(*metadata_worker, *metadata_backend);
    check_backend_name(*metadata_backend);
    *job = [=] { return eval_metadata(*metadata_input, *metadata_backend); };
  });

  auto* step = eval->add_subcommand("step",
                                    "Run one step update (SPEC 5): group compression, ring commit and the Q path.\n"
                                    "bf16 values are given and returned as 16-bit patterns, fp8 as 8-bit patterns.\n"
                                    "The schema, with a worked example, is in docs/json-schema.md.");
  auto step_input = std::make_shared<std::string>();
  auto step_backend = std::make_shared<std::string>("reference");
  auto step_pooled = std::make_shared<bool>(false);
  step->add_option("--input", *step_input, "JSON file (standard input when omitted or -; at most 64 MiB)");
  step->add_option("--backend", *step_backend, "Backend that runs the step")->capture_default_str();
  step->add_flag("--pooled", *step_pooled, "Also print each group's pooled mean before the norm (reference only)");
  auto step_worker = std::make_shared<WorkerOptions>();
  add_worker_options(step, step_worker.get());
  step->callback([=] {
    *step_backend = apply_worker_options(*step_worker, *step_backend);
    if (*step_pooled && *step_backend != "reference")
      throw InputError(
          Error{"arguments", -1, "bad-argument", "--pooled is a debug view of the reference; use --backend reference"});
    check_backend_name(*step_backend);
    *job = [=] { return eval_step(*step_input, *step_backend, *step_pooled); };
  });

  auto* ring = eval->add_subcommand(
      "ring-capacity",
      "Ring capacity R of SPEC 3 for ratio C, drafts and block size B.\n"
      "Example: qsacheck eval ring-capacity --compress-ratio 4 --num-speculative-tokens 3 --block-size 48");
  auto c = std::make_shared<std::string>();
  auto k = std::make_shared<std::string>();
  auto b = std::make_shared<std::string>();
  auto rule = std::make_shared<std::string>("seed");
  ring->add_option("--compress-ratio", *c, "Compression ratio C")->required();
  ring->add_option("--num-speculative-tokens", *k, "Draft tokens per decode step")->required();
  ring->add_option("--block-size", *b, "Attention block size B")->required();
  ring->add_option("--rule", *rule, "seed (R must divide B) or widen (smallest multiple of C >= R dividing B)")
      ->check(CLI::IsMember({"seed", "widen"}))
      ->capture_default_str();
  ring->callback([=] {
    // Any int64: ring_capacity() itself names what SPEC 3 rejects.
    constexpr int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    const int64_t ratio = parse_integer_option("--compress-ratio", *c, lo, hi);
    const int64_t drafts = parse_integer_option("--num-speculative-tokens", *k, lo, hi);
    const int64_t block = parse_integer_option("--block-size", *b, lo, hi);
    *job = [=] { return eval_ring_capacity(ratio, drafts, block, *rule); };
  });
}

}  // namespace qsa::cli
