// option_registry.h: who reads which key of ibacm's options file
// (acm_opts.cfg, or an upstream ibacm_opts.cfg): the one list of it.
//
// Each reader is named by its section of acm_opts.cfg: "core" (the daemon,
// core/core_options.h) and each shipped provider ("sa", "acmp", "ssa",
// "upstream"). The ssa provider embeds the sa provider, so [ssa] holds the
// sa keys too; the upstream bridge passes any key it does not read on to
// the upstream library it loads. Readers use it to tell a key that
// belongs in another section from one nobody reads; a unit test
// (option_registry_test.cc) checks that the list is what each reader binds.
//
// Constant data; any thread.
#ifndef IBACM_SSA_COMMON_BASE_OPTION_REGISTRY_H
#define IBACM_SSA_COMMON_BASE_OPTION_REGISTRY_H

#include <string>
#include <vector>

namespace ssa {
namespace option_registry {

// The readers, in the order messages name them.
const std::vector<std::string>& Readers();
// The keys `reader` reads itself, sorted (empty for an unknown reader).
const std::vector<std::string>& KeysOf(const std::string& reader);
// The sections in which `key` is read (the ssa provider's with the sa
// provider's keys), in Readers() order.
std::vector<std::string> SectionsOf(const std::string& key);
// "[core] or [acmp]", for messages.
std::string SectionList(const std::vector<std::string>& sections);
// Every key any reader reads, sorted, once each (for "did you mean").
std::vector<std::string> AllKeys();
// "option 'k' belongs in [sa] or [ssa], not [core]" when readers other
// than `section`'s read `key`; "" when none does.
std::string BelongsElsewhere(const std::string& key, const std::string& section);

}  // namespace option_registry
}  // namespace ssa

#endif
