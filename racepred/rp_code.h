/* rp_code.h — the client's machine code, decoded (rp_x86.h) where it is
 * mapped executable. */
#ifndef RP_CODE_H
#define RP_CODE_H

#include "pub_tool_basics.h"

#include "rp_x86.h"

/* Decodes the client's instruction at `addr`; False when its bytes are
 * not executable client memory or the instruction is not one decoded. */
Bool rp_code_decode(Addr addr, rp_x86_insn *insn);

#endif
