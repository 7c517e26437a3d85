/* rp_code.c — the client's machine code, decoded; see rp_code.h. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_vki.h"

#include "rp_code.h"

Bool rp_code_decode(Addr addr, rp_x86_insn *insn)
{
    UChar bytes[RP_X86_BYTES];

    if (!VG_(am_is_valid_for_client)(addr, RP_X86_MAX_LEN, VKI_PROT_EXEC))
        return False;
    /* A real instruction ends within RP_X86_MAX_LEN bytes: the rest is
     * padding for the decoder to read past a garbage one. */
    VG_(memset)(bytes, 0, sizeof bytes);
    VG_(memcpy)(bytes, (const void *)addr, RP_X86_MAX_LEN);
    return rp_x86_decode_bytes(bytes, addr, insn);
}
