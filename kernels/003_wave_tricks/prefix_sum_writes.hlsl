// Article 003, trick 3 (several items per lane): serialized writes.  Lane i
// writes NumItems[i] items; WavePrefixSum gives each lane its offset inside the
// wave's block, the last lane reserves the whole block with one InterlockedAdd,
// and WaveReadLaneAt broadcasts the block's base.
//  CSNaive: every lane reserves its own items with its own InterlockedAdd.
// Item k of thread t is the value (t << 4) | k.  The counter is exact; the item
// order across waves depends on the schedule, so the case compares the items as
// a multiset.
// HLSL's WavePrefixSum is exclusive.  (glslang 12 compiles it to an inclusive
// scan; wavelab corrects that — see docs/quirks.md.)
// The "last lane" is WaveGetLaneCount() - 1, which exists only in full waves:
// numthreads(64) is a multiple of every wave size from 4 to 64.

[[vk::binding(0, 0)]] StructuredBuffer<uint> NumItems;
[[vk::binding(1, 0)]] RWByteAddressBuffer BufferItemCounter;
[[vk::binding(2, 0)]] RWStructuredBuffer<uint> SomeBuffer;

[numthreads(64, 1, 1)]
void CSNaive(uint3 threadID : SV_DispatchThreadID)
{
    uint numItems = NumItems[threadID.x];
    uint baseWriteOffset;
    BufferItemCounter.InterlockedAdd(0, numItems, baseWriteOffset);
    for (uint i = 0; i < numItems; i++)
    {
        SomeBuffer[baseWriteOffset + i] = (threadID.x << 4) | i;
    }
}

[numthreads(64, 1, 1)]
void CSWave(uint3 threadID : SV_DispatchThreadID)
{
    // Number of items to write
    uint numItems = NumItems[threadID.x];

    // Offset for this lane relative to first lane
    uint localOffset = WavePrefixSum(numItems);

    // Offset for the whole wave
    uint baseWriteOffset = 0;

    // Similar to 2. trick but on last lane insead of first
    if (WaveGetLaneIndex() == WaveGetLaneCount() - 1)
    {
        uint totalItemCount = localOffset + numItems;
        BufferItemCounter.InterlockedAdd(0, totalItemCount, baseWriteOffset);
    }
    baseWriteOffset = WaveReadLaneAt(baseWriteOffset, WaveGetLaneCount() - 1);

    // Write the data to the buffer
    for (uint i = 0; i < numItems; i++)
    {
        SomeBuffer[baseWriteOffset + localOffset + i] = (threadID.x << 4) | i;
    }
}
