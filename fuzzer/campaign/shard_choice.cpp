#include "fuzzer/campaign/shard_choice.h"

#include "support/errors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <vector>

namespace fuzzer::campaign {
namespace {

constexpr unsigned kMaxShards = 1'000'000;

// Digits only: "3", not "3 ", "-1", "0x3" or "3.0".
std::optional<unsigned> ParseCount(const std::string &text) {
  if (text.empty() || text.size() > 7 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return static_cast<unsigned>(std::stoul(text));
}

// What one engine's variables say.
struct EngineShard {
  std::string engine;
  Shard shard;
  std::string variables; // "SLURM_ARRAY_TASK_ID=5, SLURM_ARRAY_TASK_MIN=3, ..."
};

class EngineReader {
public:
  EngineReader(const EnvironmentLookup &environment, std::string engine)
      : environment_(environment), engine_(std::move(engine)) {}

  std::optional<std::string> Raw(const std::string &name) {
    auto value = environment_(name);
    if (value)
      variables_.push_back(name + "=" + *value);
    return value;
  }
  std::optional<unsigned> Number(const std::string &name) {
    const auto value = Raw(name);
    if (!value)
      return std::nullopt;
    const auto number = ParseCount(*value);
    if (!number)
      Fail(fmt::format("{} is '{}', not a whole number", name, *value));
    return number;
  }
  unsigned Required(const std::string &name, const std::string &why) {
    const auto number = Number(name);
    if (!number)
      Fail(fmt::format("{} is not set ({})", name, why));
    return *number;
  }
  [[noreturn]] void Fail(const std::string &what) const {
    throw support::InputError(fmt::format("--shard auto, {} ({}): {}", engine_, Variables(), what));
  }
  void Note(const std::string &what) { variables_.push_back(what); }
  std::string Variables() const { return fmt::format("{}", fmt::join(variables_, ", ")); }
  EngineShard Done(unsigned index, unsigned count) const {
    if (count == 0 || count > kMaxShards)
      Fail(fmt::format("the shard count {} is not between 1 and {}", count, kMaxShards));
    if (index >= count)
      Fail(fmt::format("the shard index {} is outside the count {} (0 to {})", index, count,
                       count - 1));
    return {engine_, {index, count}, Variables()};
  }

private:
  const EnvironmentLookup &environment_;
  std::string engine_;
  std::vector<std::string> variables_;
};

// The count of an engine that hands out only the index: --shard-count, else the variable.
unsigned GivenCount(EngineReader &reader, std::optional<unsigned> count) {
  const auto variable = reader.Number("INDUCTOR_FUZZ_SHARD_COUNT");
  if (count && variable && *count != *variable)
    reader.Fail(fmt::format("--shard-count {} and INDUCTOR_FUZZ_SHARD_COUNT {} disagree", *count,
                            *variable));
  if (count) {
    reader.Note(fmt::format("--shard-count {}", *count));
    return *count;
  }
  if (variable)
    return *variable;
  reader.Fail("the shard count is unknown: give --shard-count N or set INDUCTOR_FUZZ_SHARD_COUNT");
}

// An engine that hands out only the index, in `variable`; the count comes from GivenCount.
std::optional<EngineShard> IndexOnly(const EnvironmentLookup &environment,
                                     std::optional<unsigned> count, const std::string &engine,
                                     const std::string &variable) {
  EngineReader reader(environment, engine);
  const auto index = reader.Number(variable);
  if (!index)
    return std::nullopt;
  return reader.Done(*index, GivenCount(reader, count));
}

std::optional<EngineShard> Explicit(const EnvironmentLookup &environment,
                                    std::optional<unsigned> count) {
  return IndexOnly(environment, count, "explicit pair", "INDUCTOR_FUZZ_SHARD_INDEX");
}

std::optional<EngineShard> Kubernetes(const EnvironmentLookup &environment,
                                      std::optional<unsigned> count) {
  return IndexOnly(environment, count, "Kubernetes Indexed Job", "JOB_COMPLETION_INDEX");
}

std::optional<EngineShard> Slurm(const EnvironmentLookup &environment,
                                 std::optional<unsigned> count) {
  EngineReader reader(environment, "Slurm array");
  const auto id = reader.Number("SLURM_ARRAY_TASK_ID");
  if (!id)
    return std::nullopt;
  const unsigned min = reader.Required("SLURM_ARRAY_TASK_MIN", "is this an array job?");
  const unsigned step = reader.Number("SLURM_ARRAY_TASK_STEP").value_or(1);
  const auto max = reader.Number("SLURM_ARRAY_TASK_MAX");
  const auto counted = reader.Number("SLURM_ARRAY_TASK_COUNT");
  if (step == 0)
    reader.Fail("SLURM_ARRAY_TASK_STEP is 0");
  if (!max && !counted)
    reader.Fail("neither SLURM_ARRAY_TASK_MAX nor SLURM_ARRAY_TASK_COUNT is set");
  const std::optional<unsigned> spanned =
      max ? std::optional<unsigned>(*max >= min ? (*max - min) / step + 1 : 0) : std::nullopt;
  if (spanned && counted && *spanned != *counted)
    reader.Fail(fmt::format("the array is not one range ({} tasks from MIN to MAX by STEP, {} in "
                            "COUNT); submit it as --array=0-{}",
                            *spanned, *counted, *counted - 1));
  if (*id < min || (*id - min) % step != 0)
    reader.Fail("SLURM_ARRAY_TASK_ID is not a task of MIN..MAX by STEP");
  const unsigned total = counted.value_or(spanned.value_or(0));
  if (count && *count != total)
    reader.Fail(
        fmt::format("--shard-count {} disagrees with the array's {} task(s)", *count, total));
  return reader.Done((*id - min) / step, total);
}

std::optional<EngineShard> PyTorchCi(const EnvironmentLookup &environment,
                                     std::optional<unsigned> count) {
  EngineReader reader(environment, "PyTorch CI convention");
  const auto number = reader.Number("SHARD_NUMBER");
  if (!number)
    return std::nullopt;
  const unsigned total = reader.Required("NUM_TEST_SHARDS", "it gives the count");
  if (*number == 0)
    reader.Fail("SHARD_NUMBER is 0, but it counts from 1");
  if (count && *count != total)
    reader.Fail(fmt::format("--shard-count {} disagrees with NUM_TEST_SHARDS {}", *count, total));
  if (*number > total)
    reader.Fail(fmt::format("SHARD_NUMBER {} is past NUM_TEST_SHARDS {}", *number, total));
  return reader.Done(*number - 1, total);
}

Shard ParseExplicitShard(const std::string &text) {
  const auto slash = text.find('/');
  const auto index = slash == std::string::npos ? std::nullopt : ParseCount(text.substr(0, slash));
  const auto count = slash == std::string::npos ? std::nullopt : ParseCount(text.substr(slash + 1));
  if (!index || !count || *count == 0 || *count > kMaxShards || *index >= *count)
    throw support::InputError(fmt::format(
        "--shard {} is not I/N with 0 <= I < N (e.g. --shard 2/8) or auto (the index from the "
        "engine's variables: see `fuzz --help`)",
        text));
  return {*index, *count};
}

} // namespace

EnvironmentLookup ProcessEnvironment() {
  return [](const std::string &name) -> std::optional<std::string> {
    if (const char *value = std::getenv(name.c_str()))
      return std::string(value);
    return std::nullopt;
  };
}

ShardChoice ChooseShard(const std::string &spec, std::optional<unsigned> count,
                        const EnvironmentLookup &environment) {
  if (spec != "auto") {
    if (count)
      throw support::InputError(fmt::format(
          "--shard-count goes with --shard auto; with --shard {} the count is already given",
          spec));
    const Shard shard = ParseExplicitShard(spec);
    return {shard, fmt::format("--shard {}/{}", shard.index, shard.count)};
  }
  std::vector<EngineShard> found;
  for (const auto &engine : {Explicit, Kubernetes, Slurm, PyTorchCi})
    if (auto shard = engine(environment, count))
      found.push_back(std::move(*shard));
  if (found.empty())
    throw support::InputError(
        "--shard auto: no engine's shard variables are set (INDUCTOR_FUZZ_SHARD_INDEX, "
        "JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, SHARD_NUMBER); give --shard I/N instead");
  for (const auto &other : found)
    if (other.shard.index != found.front().shard.index ||
        other.shard.count != found.front().shard.count)
      throw support::InputError(fmt::format(
          "--shard auto: the {} says shard {}/{} ({}) but the {} says {}/{} ({}); unset one",
          found.front().engine, found.front().shard.index, found.front().shard.count,
          found.front().variables, other.engine, other.shard.index, other.shard.count,
          other.variables));
  const auto &chosen = found.front();
  return {chosen.shard, fmt::format("--shard auto: {}/{} from the {} ({})", chosen.shard.index,
                                    chosen.shard.count, chosen.engine, chosen.variables)};
}

} // namespace fuzzer::campaign
