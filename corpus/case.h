#pragma once

#include "corpus/field_reader.h"
#include "corpus/knobs.h"
#include "corpus/tensor_data.h"
#include "support/text_file.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// Version 1 cases still load; a case is written as version 1 when it uses nothing of version 2
// (other dtypes, knobs left to Inductor, closure constants, call sequences, flex_attention's
// options), so that the cases and corpora written before keep their bytes and their ids.
// Version 3 adds api "tensor_program"; a case that is no tensor program is written as before.
inline constexpr int kCaseFormatVersion = 3;

// A case the worker can run: everything that decides what Inductor generates is in here,
// so that a case replays to the same generated C++.
struct MaskFunction {
  std::string name;   // the function the source defines
  std::string source; // Python source; `torch` is in scope
  bool operator==(const MaskFunction &) const = default;
};

// The arguments of create_block_mask / create_mask; for flex_attention, those of its block mask.
struct BlockMaskArguments {
  std::optional<std::int64_t> batch; // B; none means broadcast over the batch
  std::optional<std::int64_t> heads; // H; none means broadcast over the heads
  std::int64_t q_len = 0;
  std::int64_t kv_len = 0;
  std::vector<std::int64_t> block_size{128}; // one value, or (Q, KV)
  std::string device = "cpu";
  // false: every non-empty block is a partial one (mask_mod applied in each), no full blocks.
  bool separate_full_blocks = true;
  bool operator==(const BlockMaskArguments &) const = default;
};

// How flex_attention's query, key and value are laid out in memory: contiguous (the default,
// left out of a case's JSON); "bshd-transposed": allocated [B, S, H, D] and transposed to
// [B, H, S, D]; "sliced": a view into a tensor one row longer and twice as wide (storage offset,
// row stride 2D); "expanded-kv": key and value allocated with one head, expanded to Hkv.
inline const std::string kContiguousLayout = "contiguous";
inline const std::vector<std::string> kLayouts = {kContiguousLayout, "bshd-transposed", "sliced",
                                                  "expanded-kv"};

// How the tensors of a block mask rebuilt with BlockMask.from_kv_blocks are laid out:
// "contiguous"; "expanded-heads": the same blocks for every head, one head's tensor expanded
// over Hq (head stride 0); "strided": a view with every other element of a wider tensor.
inline const std::vector<std::string> kBlockTensorLayouts = {"contiguous", "expanded-heads",
                                                             "strided"};

// The block mask create_block_mask makes, rebuilt with BlockMask.from_kv_blocks from its tensors:
// the partial blocks' (kv_num_blocks, kv_indices) and the full blocks' laid out as given. An
// "expanded-heads" pair lists for every head the blocks of all heads (partial: their union; full:
// their intersection, the rest listed as partial), so the rebuilt mask covers mask_mod as the
// original does.
struct FromKvBlocks {
  std::string partial = "contiguous"; // one of kBlockTensorLayouts
  std::string full = "contiguous";
  bool operator==(const FromKvBlocks &) const = default;
};

// flex_attention's query/key/value: q is (B, Hq, Q_LEN, E), k (B, Hkv, KV_LEN, E),
// v (B, Hkv, KV_LEN, Ev); inputs are drawn from torch's generator seeded with input_seed.
struct AttentionArguments {
  std::int64_t batch = 1;
  std::int64_t q_heads = 1;
  std::int64_t kv_heads = 1;
  std::int64_t q_len = 1;
  std::int64_t kv_len = 1;
  std::int64_t head_dim = 16;
  std::int64_t value_dim = 16;
  std::string dtype = "float32";
  std::int64_t input_seed = 0;
  bool use_block_mask = true;
  bool enable_gqa = false;
  std::optional<double> scale;                      // none: 1/sqrt(E)
  bool return_lse = false;                          // also compare the log-sum-exp
  nlohmann::json kernel_options = nlohmann::json(); // null, or flex_attention's dict
  std::vector<std::string> qkv;                     // empty, or the tensors used as q, k, v
  std::vector<std::string> block_mask_tensors;      // empty, or a ready-made BlockMask's
                                                    // kv_num_blocks, kv_indices[, full ones]
  std::string layout = kContiguousLayout;           // one of kLayouts
  std::optional<FromKvBlocks> from_kv_blocks;       // none: create_block_mask's own block mask
  bool operator==(const AttentionArguments &) const = default;
};

// One more call of the same compiled function, after the case's own: what changes. Each call
// is compared against eager; a change that Dynamo guards on recompiles.
struct CallChange {
  nlohmann::json constants = nlohmann::json::object(); // new values of closure constants
  std::optional<std::int64_t> batch;                   // B of the inputs and the block mask
  std::optional<std::int64_t> q_len;
  std::optional<std::int64_t> kv_len;
  std::vector<CapturedTensor> tensors; // captured tensors replaced, by name
  std::string dtype;                   // flex_attention's input dtype; empty: unchanged
  bool operator==(const CallChange &) const = default;
};

// The APIs a case may call are rows (corpus/api_row.h: ApiNames(), made by apis/NAME.cpp).
// index_program: mask_mod evaluated on broadcast aranges of create_block_mask's shape, compiled on
// its own (no vmap, no flex_attention): Inductor's generic loop code over index expressions.
inline const std::string kIndexProgram = "index_program";

// tensor_program: the case's function (its "mask_mod" field, the program) called on views of
// the case's tensors, compiled on its own: a typed graph of torch operations over real inputs
// (reductions on any axis, indexing, matmul, normalisations, views, in-place updates), each
// input a strided view (torch.as_strided) of one captured tensor's flat storage, so that
// transposed, permuted, channels-last, sliced and expanded inputs are all one form.
inline const std::string kTensorProgram = "tensor_program";
struct ProgramInput {
  std::string tensor;               // the captured tensor whose values are the storage
  std::vector<std::int64_t> size;   // the view's sizes (0 allowed)
  std::vector<std::int64_t> stride; // in elements, one per size; 0 repeats (an expanded input)
  std::int64_t offset = 0;          // the view's storage offset, in elements
  bool operator==(const ProgramInput &) const = default;
};
struct TensorProgram {
  std::vector<ProgramInput> inputs; // the program's arguments, in order
  // (input, dimension) pairs marked dynamic (torch._dynamo.mark_dynamic) before the call.
  std::vector<std::vector<std::int64_t>> dynamic;
  bool operator==(const TensorProgram &) const = default;
};
// What an index program returns: the values, or their reduction over the last (KV) dimension.
// sum and amax convert to int64 first; the others keep the values' dtype (case_calls.py).
inline const std::vector<std::string> kIndexReductions = {
    "none", "sum", "amax", "any", "prod", "amin", "all", "argmax", "value_sum", "value_amax"};

// How a case's function is compiled: torch.compile, or AOTInductor (torch.export.export of the
// function wrapped in an nn.Module, aoti_compile_and_package, aoti_load_package). The default is
// left out of the JSON, so that the cases written before keep their bytes and ids.
inline const std::string kTorchCompile = "torch.compile";
inline const std::string kAoti = "aoti";
inline const std::vector<std::string> kCompilePaths = {kTorchCompile, kAoti};

// What torch.compile compiles: the API itself ("api", the default, left out of the JSON), or
// ("function") a user's function of the API's tensor inputs and the case's constants, whose body
// defines mask_mod and score_mod (closing over its parameters) and calls the API, as a model's
// forward does. The constants are then the compiled function's arguments, under their own names.
inline const std::string kCompileApi = "api";
inline const std::string kCompileFunction = "function";
// "module": the same program as the forward of an nn.Module holding the case's tensors as its
// buffers (parameters, for floating ones), compiled with torch.compile or exported for AOTI.
inline const std::string kCompileModule = "module";
inline const std::vector<std::string> kCompileScopes = {kCompileApi, kCompileFunction,
                                                        kCompileModule};

struct Case {
  std::string name;
  std::string api = "create_block_mask"; // one of ApiNames()
  std::optional<MaskFunction> mask_mod;  // required but for flex_attention without a mask
  std::optional<MaskFunction> score_mod; // flex_attention only
  std::vector<CapturedTensor> tensors;
  // Python ints, floats and bools the functions close over: the sources run as the body of a
  // function with these parameters, so that a later call can change them as a closure would.
  nlohmann::json constants = nlohmann::json::object();
  std::vector<CallChange> calls; // the calls after the first
  BlockMaskArguments create_block_mask;
  std::optional<AttentionArguments> attention; // flex_attention only
  std::string index_reduction = "none";        // index_program only: one of kIndexReductions
  std::optional<TensorProgram> tensor_program; // tensor_program only
  InductorKnobs inductor;
  std::string expect_raises; // empty, or the class of exception the case is meant to raise
  std::string compile_with = kTorchCompile;             // one of kCompilePaths
  std::string compile_scope = kCompileApi;              // one of kCompileScopes
  nlohmann::json provenance = nlohmann::json::object(); // seed, origin, tool version, ...
  bool operator==(const Case &) const = default;
};

// A case file or case JSON that cannot be used; the message names the field and the fix.
using CaseError = FormatError;

// The complete torch._inductor.config patch the case runs under (see knobs.h).
inline nlohmann::json InductorConfig(const Case &c) { return InductorConfig(c.inductor); }

// The lowest format version that holds everything in `c`.
int FormatVersionOf(const Case &c);

// `sidecar_dir` is where tensors kept in sidecar files are read from; without it such a case is
// refused. CaseToJson keeps every tensor inline.
Case CaseFromJson(const nlohmann::json &json,
                  const std::optional<std::filesystem::path> &sidecar_dir = std::nullopt);
nlohmann::json CaseToJson(const Case &c);
Case LoadCaseFile(const std::filesystem::path &path);
// Writes the case file and, next to it, a sidecar for each tensor of more than
// kInlineTensorElements elements, with its sha256 in the JSON.
void SaveCaseFile(const std::filesystem::path &path, const Case &c);

// torch.compile's `dynamic=`: true, false, or null when the case leaves it to Dynamo.
nlohmann::json DynamicArgument(const Case &c);

} // namespace corpus
