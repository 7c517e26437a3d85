/* rp_callee.h — the name of the function a direct call reaches.
 *
 * A call into a shared library goes to the caller's PLT, an entry with no
 * symbol of its own that jumps through a GOT slot.  Once the dynamic
 * linker has bound the slot, it holds the function's address, whose name
 * Valgrind's debug info gives.  Before (lazy binding, glibc's default: the
 * first call binds), the slot points back into the PLT, at a push of the
 * slot's relocation number; the relocation names the symbol.  The object's
 * dynamic section, where the relocations and the symbol table are, is
 * found through the link map the dynamic linker stores in the GOT's
 * second word for lazy binding.  Every word read is checked to be client
 * memory, and the relocation to name the slot the entry jumps through.
 */
#ifndef RP_CALLEE_H
#define RP_CALLEE_H

#include "pub_tool_basics.h"

/* Copies into buf (NUL-terminated, truncated to size) the name of the
 * function whose entry is `target` or that the PLT entry at `target`
 * jumps to; False if it cannot be told. */
Bool rp_callee_name(Addr target, HChar *buf, SizeT size);

#endif
