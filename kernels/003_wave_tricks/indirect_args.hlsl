// Article 003, trick 7: indirect dispatch thread-group count.  Each lane has
// NumberOfItems[t] items (1..20 here) for a later pass with numthreads(256).
// One lane per wave adds the wave's total to the item counter and grows
// ThreadGroupCountX by the number of 256-item boundaries its block crosses; the
// wave that gets base 0 also adds (1, 1, 1) (the buffer starts at (0, 0, 0)).
// Result: count = total items, X = 1 + (total >> 8), Y = Z = 1, whatever the
// order of the waves — provided every wave has at least one item: a wave with
// zero items that runs first would also see base 0 and add (1, 1, 1) again.
// (1 + (total >> 8) is one group too many when total is a multiple of 256; that
// is the article's formula.)

#define TARGET_NUM_THREADS_LOG2 8

struct DispatchArgs
{
    uint ThreadGroupCountX;
    uint ThreadGroupCountY;
    uint ThreadGroupCountZ;
};

[[vk::binding(0, 0)]] StructuredBuffer<uint> NumberOfItems;
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> SomeCountBuffer;
[[vk::binding(2, 0)]] RWStructuredBuffer<DispatchArgs> IndirectArguments;

[numthreads(128, 1, 1)]
void CSMain(uint3 threadID : SV_DispatchThreadID)
{
    const uint numberOfItems = NumberOfItems[threadID.x]; // Number of items we want to process
    const uint totalItems = WaveActiveSum(numberOfItems);
    if (WaveIsFirstLane())
    {
        uint baseIndex;
        InterlockedAdd(SomeCountBuffer[0], totalItems, baseIndex);

        // If we initialize the buffer on CPU as (1,1,1) we can delete this
        if (baseIndex == 0)
        {
            InterlockedAdd(IndirectArguments[0].ThreadGroupCountX, 1u);
            InterlockedAdd(IndirectArguments[0].ThreadGroupCountY, 1u);
            InterlockedAdd(IndirectArguments[0].ThreadGroupCountZ, 1u);
        }

        // Calculation how much threadgroups we need after totalItems addition
        const uint minGroupRequired = baseIndex >> TARGET_NUM_THREADS_LOG2;
        const uint maxGroupRequired = (baseIndex + totalItems) >> TARGET_NUM_THREADS_LOG2;
        if (maxGroupRequired > minGroupRequired)
        {
            InterlockedAdd(IndirectArguments[0].ThreadGroupCountX, maxGroupRequired - minGroupRequired);
        }
    }
}
