// isa/spvopt.cpp — the SPIR-V passes wavelab runs between a producer
// (glslang, glslangValidator, DXC, a hand-written module) and the lowering,
// through SPIRV-Tools' optimizer.
//
// Two lists, never mixed up:
//
//  * legalization (always): the lowering wants one function with SSA values.
//    These passes get there without moving any instruction across structured
//    control flow, so every wave operation keeps the lanes the source gave
//    it: merge-return and exhaustive inlining (a call's body lands where the
//    call was; early returns become breaks out of a one-trip loop, so lanes
//    that returned wait for the others exactly as they would after a call),
//    dead-function removal, scalar replacement and the three local-variable
//    passes (loads and stores of Function variables become SSA values and
//    phis), then aggressive dead-code elimination (deletes only instructions
//    whose results nothing observes).  No block merging, dead-branch
//    elimination, if-conversion, loop unswitching or code sinking: those
//    are what change wave semantics (docs/quirks.md).
//
//  * optimization (only when the user asks, `--optimize`): spirv-opt's -O or
//    -Os list, or any spirv-opt flags.  run/ then runs both programs and
//    says when the results differ.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <spirv-tools/optimizer.hpp>

extern "C" {
#include "isa/isa.h"
}

namespace {

const char *const legalization_flags[] = {
    "--merge-return",
    "--inline-entry-points-exhaustive",
    "--eliminate-dead-functions",
    "--scalar-replacement=0",
    "--convert-local-access-chains",
    "--eliminate-dead-code-aggressive",
    "--eliminate-local-single-block",
    "--eliminate-local-single-store",
    "--ssa-rewrite",
    "--eliminate-dead-code-aggressive",
};

void set_err(char *err, size_t err_size, const std::string &msg)
{
    if (err && err_size)
        snprintf(err, err_size, "%s", msg.c_str());
}

// Runs `opt` over the module; on success replaces *words (malloc'd) with the result.
isa_status run_optimizer(spvtools::Optimizer &opt, uint32_t **words, size_t *word_count, const char *what,
                         char *err, size_t err_size)
{
    std::string messages;
    opt.SetMessageConsumer([&messages](spv_message_level_t level, const char *, const spv_position_t &pos,
                                       const char *m) {
        if (level <= SPV_MSG_ERROR) {
            if (!messages.empty())
                messages += "; ";
            messages += "word " + std::to_string(pos.index) + ": " + m;
        }
    });
    std::vector<uint32_t> out;
    spvtools::ValidatorOptions vopt;
    spvtools::OptimizerOptions oopt;
    oopt.set_run_validator(false); // the input was validated by the caller (isa_validate)
    oopt.set_validator_options(vopt);
    if (!opt.Run(*words, *word_count, &out, oopt)) {
        set_err(err, err_size, std::string(what) + " failed" + (messages.empty() ? "" : ": " + messages));
        return ISA_ERR_INVALID;
    }
    uint32_t *copy = static_cast<uint32_t *>(malloc(out.size() * sizeof(uint32_t)));
    if (!copy)
        return ISA_ERR_NOMEM;
    memcpy(copy, out.data(), out.size() * sizeof(uint32_t));
    free(*words);
    *words = copy;
    *word_count = out.size();
    return ISA_OK;
}

} // namespace

extern "C" isa_status isa_spirv_legalize(uint32_t **words, size_t *word_count, char *err, size_t err_size)
{
    spvtools::Optimizer opt(static_cast<spv_target_env>(isa_spirv_env(*words, *word_count)));
    std::vector<std::string> flags(std::begin(legalization_flags), std::end(legalization_flags));
    if (!opt.RegisterPassesFromFlags(flags)) {
        set_err(err, err_size, "SPIRV-Tools does not know wavelab's legalization passes");
        return ISA_ERR_INVALID;
    }
    return run_optimizer(opt, words, word_count, "SPIR-V legalization (inlining, SSA)", err, err_size);
}

extern "C" const char *isa_spirv_legalization_passes(void)
{
    // a function-local static is initialised once, thread-safely (`wavelab test` compiles on several threads)
    static const std::string joined = [] {
        std::string j;
        for (const char *f : legalization_flags)
            j += (j.empty() ? "" : " ") + std::string(f);
        return j;
    }();
    return joined.c_str();
}

extern "C" isa_status isa_spirv_optimize(uint32_t **words, size_t *word_count, const char *passes, char *err,
                                         size_t err_size)
{
    spvtools::Optimizer opt(static_cast<spv_target_env>(isa_spirv_env(*words, *word_count)));
    std::string p = passes ? passes : "";
    if (p.empty() || p == "performance" || p == "-O") {
        opt.RegisterPerformancePasses();
    } else if (p == "size" || p == "-Os") {
        opt.RegisterSizePasses();
    } else {
        std::vector<std::string> flags;
        std::istringstream in(p);
        for (std::string f; in >> f;) {
            if (f.rfind("--", 0) != 0) {
                set_err(err, err_size, "optimizer pass \"" + f +
                                           "\": expected \"performance\", \"size\" or spirv-opt flags such as "
                                           "\"--merge-blocks --if-conversion\"");
                return ISA_ERR_UNSUPPORTED;
            }
            flags.push_back(f);
        }
        std::string bad;
        opt.SetMessageConsumer([&bad](spv_message_level_t, const char *, const spv_position_t &, const char *m) {
            if (bad.empty())
                bad = m;
        });
        if (!opt.RegisterPassesFromFlags(flags)) {
            set_err(err, err_size, "optimizer passes \"" + p + "\": " + (bad.empty() ? "not a spirv-opt flag" : bad));
            return ISA_ERR_UNSUPPORTED;
        }
    }
    return run_optimizer(opt, words, word_count, "the SPIR-V optimizer", err, err_size);
}
