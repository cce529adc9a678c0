#include "workflows/convert.h"

#include "corpus/api_row.h"
#include "corpus/knobs.h"
#include "fuzzer/worker/worker_client.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "support/sha256.h"
#include "support/text_file.h"
#include "support/version.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <ostream>
#include <sstream>

namespace workflows {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::vector<corpus::CapturedTensor> TensorsOf(const json &list) {
  // The worker's tensors are a case's: read through the case reader, which checks them.
  json probe = {
      {"format_version", 2},
      {"name", "probe"},
      {"mask_mod", {{"name", "m"}, {"source", "m = None"}}},
      {"tensors", list},
      {"create_block_mask",
       {{"B", 1}, {"H", 1}, {"Q_LEN", 1}, {"KV_LEN", 1}, {"BLOCK_SIZE", 1}, {"device", "cpu"}}},
      {"inductor", json::object()}};
  return corpus::CaseFromJson(probe).tensors;
}

std::string Stem(const fs::path &path) { return path.stem().string(); }

// An API whose row says no (corpus/api_row.h: a tensor program) is no mask module: its inputs
// and their views are the case's own fields.
void RefuseNotFromMaskModule(const MaskModuleOptions &options) {
  const corpus::CorpusApi &api = corpus::CorpusApiOf(options.api);
  if (!api.from_mask_module)
    throw support::InputError(
        fmt::format("--api {}: a {} is not converted from a mask module; the generator writes them "
                    "(inductor-fuzz gen), or write the case file by hand (docs/case-format.md)",
                    options.api, api.noun));
}

} // namespace

corpus::Case CaseFromMaskModule(fuzzer::worker::Worker &worker, const fs::path &module,
                                const MaskModuleOptions &options, std::ostream &warnings) {
  RefuseNotFromMaskModule(options);
  if (options.mask.empty() && options.score.empty())
    throw support::InputError(fmt::format(
        "{} is a Python module: name the function to run with --mask NAME (and/or --score NAME)",
        module.string()));
  const std::string text = support::ReadTextFile(module, "Python module", 16u << 20);
  if (options.shape.size() != 4)
    throw support::InputError("--shape takes four integers: B,H,Q_LEN,KV_LEN");
  for (auto extent : options.shape)
    if (extent < 1)
      throw support::InputError("--shape takes positive integers: B,H,Q_LEN,KV_LEN");
  json request = {{"op", "convert"}, {"path", fs::absolute(module).string()}};
  if (!options.mask.empty())
    request["mask"] = options.mask;
  if (!options.score.empty())
    request["score"] = options.score;
  const auto reply = worker.Request(request, std::chrono::minutes(5));
  if (reply.status != fuzzer::worker::ReplyStatus::kOk)
    throw support::InputError(fmt::format("converting {} stopped the worker ({}); see its log",
                                          module.string(), reply.detail));
  if (reply.message.contains("error"))
    throw support::InputError(reply.message["error"].get<std::string>());
  const json &converted = reply.message.at("convert");
  for (const auto &warning : converted.value("warnings", json::array()))
    warnings << "warning: " << warning.get<std::string>() << "\n";

  corpus::Case c;
  c.name = options.name.empty() ? fmt::format("{}-{}", Stem(module),
                                              options.mask.empty() ? options.score : options.mask)
                                : options.name;
  // No --api: a case's default API, or with a score the first whose cases have a score_mod.
  c.api = options.api;
  if (c.api.empty()) {
    c.api = corpus::Case{}.api;
    for (const corpus::CorpusApi &api : corpus::CorpusApis())
      if (!options.score.empty() && api.score_mod) {
        c.api = std::string(api.name);
        break;
      }
  }
  if (const auto &names = corpus::ApiNames();
      std::find(names.begin(), names.end(), c.api) == names.end())
    throw support::InputError(
        fmt::format("--api {} is not one of {}", c.api, fmt::join(names, ", ")));
  for (const auto &[key, target] :
       {std::pair{"mask_mod", &c.mask_mod}, {"score_mod", &c.score_mod}})
    if (converted.contains(key) && !converted[key].is_null())
      *target = corpus::MaskFunction{converted[key]["name"], converted[key]["source"]};
  c.tensors = TensorsOf(converted.value("tensors", json::array()));
  c.constants = converted.value("constants", json::object());
  c.create_block_mask = {.batch = options.shape[0],
                         .heads = options.shape[1],
                         .q_len = options.shape[2],
                         .kv_len = options.shape[3],
                         .block_size = {options.block_size}};
  if (corpus::OwnsField(c, "attention"))
    c.attention = corpus::AttentionArguments{.batch = options.shape[0],
                                             .q_heads = options.shape[1],
                                             .kv_heads = options.shape[1],
                                             .q_len = options.shape[2],
                                             .kv_len = options.shape[3],
                                             .head_dim = options.head_dim,
                                             .value_dim = options.head_dim,
                                             .dtype = options.dtype,
                                             .use_block_mask = c.mask_mod.has_value()};
  else if (!options.score.empty())
    throw support::InputError("--score needs --api flex_attention");
  // A module that compiles with AOTInductor makes an aoti case (a sequence is torch.compile's).
  if (converted.value("compile_with", corpus::kTorchCompile) == corpus::kAoti)
    c.compile_with = corpus::kAoti;
  // A user's module runs under Inductor's own defaults: every knob is left to it.
  for (const auto &knob : corpus::InductorKnobTable())
    if (!knob.optional) // an optional knob a case does not set is Inductor's already
      c.inductor.defaulted.insert(std::string(knob.name));
  c.provenance = {{"origin", fmt::format("converted from {}", module.string())},
                  {"module_sha256", support::Sha256Hex(text)},
                  {"mask", options.mask},
                  {"score", options.score},
                  {"tool_version", support::ToolVersion()},
                  {"command_line", options.command_line}};
  if (!converted.value("warnings", json::array()).empty())
    c.provenance["warnings"] = converted["warnings"];
  // The case the reader would make of it: a case we cannot read back is never written. The
  // options below go through the reader too, which checks them as it checks a case file's.
  json document = corpus::CaseToJson(c);
  if ((!options.kernel_options.empty() || !options.layout.empty()) &&
      !corpus::OwnsField(c, "attention"))
    throw support::InputError("--kernel-options and --layout need --api flex_attention");
  if (!options.kernel_options.empty()) {
    json kernel_options = json::parse(options.kernel_options, nullptr, false);
    if (!kernel_options.is_object())
      throw support::InputError(fmt::format("--kernel-options {} is not a JSON object; give one "
                                            "like '{{\"PARTITION_SIZE\": 256}}'",
                                            options.kernel_options));
    document["attention"]["kernel_options"] = kernel_options;
  }
  if (!options.layout.empty())
    document["attention"]["layout"] = options.layout;
  for (const auto &setting : options.knobs) {
    const auto equals = setting.find('=');
    if (equals == std::string::npos || equals == 0)
      throw support::InputError(
          fmt::format("--knob {} is not NAME=VALUE; e.g. --knob cpp.min_chunk_size=64", setting));
    const std::string name = setting.substr(0, equals), text = setting.substr(equals + 1);
    const json value = json::parse(text, nullptr, false);
    document["inductor"][name] = value.is_discarded() ? json(text) : value;
  }
  document["format_version"] = corpus::kCaseFormatVersion;
  return corpus::CaseFromJson(document);
}

int Convert(const ConvertOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  if (options.out_file.empty())
    throw support::InputError("convert needs --out CASE.json");
  if (fs::is_directory(options.out_file))
    throw support::InputError(
        fmt::format("--out {} is a folder: give the case's file name", options.out_file.string()));
  corpus::Case c;
  if (options.input.extension() == ".json") {
    // A case too large to load as it is: read with the sidecar limit and stored again.
    if (!fs::exists(options.input))
      throw support::InputError(fmt::format("{} does not exist", options.input.string()));
    const std::string text =
        support::ReadTextFile(options.input, "case file", corpus::kSidecarLimit);
    try {
      c = corpus::CaseFromJson(json::parse(text), options.input.parent_path().empty()
                                                      ? fs::path(".")
                                                      : options.input.parent_path());
    } catch (const json::parse_error &error) {
      throw support::InputError(
          fmt::format("{} is not valid JSON ({})", options.input.string(), error.what()));
    }
  } else {
    RefuseNotFromMaskModule(options.module); // before a worker starts
    support::ScratchDir scratch("inductor-fuzz-convert");
    fuzzer::worker::Worker worker(
        fuzzer::worker::WorkerOptions{.worker_executable = paths.worker_executable,
                                      .venv = paths.venv,
                                      .confine = paths.confine_workers,
                                      .scratch_dir = scratch.path() / "worker",
                                      .log_file = scratch.path() / "worker.log"});
    c = CaseFromMaskModule(worker, options.input, options.module, out);
  }
  if (options.out_file.has_parent_path())
    fs::create_directories(options.out_file.parent_path());
  corpus::SaveCaseFile(options.out_file, c);
  out << fmt::format("convert: wrote {} (case {}, format version {}, {} tensor(s), {} "
                     "constant(s))\n",
                     options.out_file.string(), c.name, corpus::FormatVersionOf(c),
                     c.tensors.size(), c.constants.size());
  return support::kExitNothingFound;
}

} // namespace workflows
