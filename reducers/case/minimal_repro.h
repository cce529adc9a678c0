#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"
#include "fuzzer/worker/standalone_run.h"

#include <chrono>
#include <filesystem>
#include <string>

namespace reducers {

// How much of Inductor's configuration the script sets: only what the case changes (and
// cpp.threads, which the tool fixes and Inductor does not), or all of it. The harness's own
// settings (its caches off) are not the failure's: a standalone run gets a fresh cache folder.
enum class ReproConfig { kMinimal, kComplete };

// A standalone script in the shape a PyTorch bug report wants: nothing but torch, the version
// and the settings printed, the mask and score functions as written, eager against compiled.
// It fails the way the case fails (a crash, an exception, an assertion on a wrong result) and
// prints PASS otherwise.
// A memory error's script starts with `prelude` (fuzzer::worker::SanitizedReproPrelude), which
// runs it again sanitized. `kind` is the failure's (the signature heads the script): a failure
// of the compiled call itself may be written as its calls unrolled (corpus::FindingKindRow).
std::string EmitMinimalRepro(const corpus::Case &c, corpus::FindingKind kind,
                             const std::string &signature, ReproConfig config,
                             const std::string &prelude = "");

// Running a repro script standalone and judging it lives in the worker layer (the campaign
// judges its delivered repros with it too); the reducers use it under their own names.
using fuzzer::worker::RunStandalone;
using fuzzer::worker::StandaloneRun;

} // namespace reducers
