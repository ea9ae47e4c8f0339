#version 450
#extension GL_KHR_memory_scope_semantics : require
// Not a bug: invocation 0 loads the flag atomically, then (no barrier between) invocation 127, in a later
// wave, stores it atomically.  Atomic-atomic pairs never race.  With PLAIN_LOAD (atomic_load_store_plain.json)
// the load is a plain one, and the pair is a race.
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } outp;
shared uint flag;
void main()
{
    uint i = gl_LocalInvocationIndex;
    if (i == 0u)
        flag = 0u;
    barrier();
    uint v = 0u;
#ifdef PLAIN_LOAD
    if (i == 0u)
        v = flag; // PLAIN-LOAD
#else
    if (i == 0u)
        v = atomicLoad(flag, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelaxed); // ATOMIC-LOAD
#endif
    if (i == 127u)
        atomicStore(flag, 5u, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelaxed); // ATOMIC-STORE
    outp.data[i] = v == 0xffffffffu ? 7u : 1u; // the same whichever of 0 and 5 the load saw
}
