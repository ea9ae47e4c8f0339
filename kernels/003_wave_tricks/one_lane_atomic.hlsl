// Article 003, tricks 2 and 3 (one item per lane): calculate on one lane, read
// on all.  Lanes whose value is a multiple of 3 ("shouldAdd") each reserve one
// slot in Slots and write their thread id into it.
//  CSNaive: one InterlockedAdd per adding lane.
//  CSWave:  WaveActiveCountBits, one InterlockedAdd on the first lane,
//           WaveReadLaneFirst to broadcast the old counter value, then each
//           adding lane takes slot base + WavePrefixCountBits(shouldAdd).
// The counter ends at the same value; the slot order depends on the order in
// which waves reach the atomic, so the case compares Slots as a multiset.

[[vk::binding(0, 0)]] StructuredBuffer<uint> Values;
[[vk::binding(1, 0)]] RWByteAddressBuffer SomeDataBuffer;   // the counter, at byte offset 0
[[vk::binding(2, 0)]] RWStructuredBuffer<uint> Slots;

static const uint bufferOffset = 0;

[numthreads(64, 1, 1)]
void CSNaive(uint3 threadID : SV_DispatchThreadID)
{
    bool shouldAdd = (Values[threadID.x] % 3) == 0;
    if (shouldAdd)
    {
        uint slot;
        SomeDataBuffer.InterlockedAdd(bufferOffset, 1u, slot);   // 1u: glslang 12 emits invalid SPIR-V (int value, uint result) for a plain 1
        Slots[slot] = threadID.x;
    }
}

[numthreads(64, 1, 1)]
void CSWave(uint3 threadID : SV_DispatchThreadID)
{
    // Some condition if the lane should be included in addition
    bool shouldAdd = (Values[threadID.x] % 3) == 0;

    // Count the number of lanes that needs to add to the buffer
    uint addCount = WaveActiveCountBits(shouldAdd);

    uint valueAfterAddition = 0;   // the article leaves it uninitialized on the other lanes
    if (WaveIsFirstLane())
    {
        // Add to the buffer
        SomeDataBuffer.InterlockedAdd(bufferOffset, addCount, valueAfterAddition);
    }
    // Read the new value to all lanes
    valueAfterAddition = WaveReadLaneFirst(valueAfterAddition);

    // Trick 3, one item per lane: serialize the writes with a prefix count
    if (shouldAdd)
    {
        uint writeOffset = valueAfterAddition + WavePrefixCountBits(shouldAdd);
        Slots[writeOffset] = threadID.x;
    }
}
