#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

namespace workflows {

struct CaptureImportOptions {
  std::filesystem::path capture; // a folder `python -m inductor_fuzz_capture --cases` wrote
  std::filesystem::path corpus = "fuzz-corpus";
  std::string command_line;
};

// `inductor-fuzz corpus import DIR`: every case of a portable capture becomes what `run-case`
// would have made of it on the machine that ran it (fuzzer::worker::OutcomeOfReply on the reply
// stored there), and each finding is stored in the corpus as a campaign stores one: keyed by its
// signature, grouped into bugs, its run record and recordings kept. The whole folder is read
// and checked before anything is stored. Exit 0: no finding; 1: findings imported. Throws
// InputError (exit 2) for a folder that is not a capture, is a newer format, or names a path
// outside itself.
int ImportCapture(const CaptureImportOptions &options, std::ostream &out);

} // namespace workflows
