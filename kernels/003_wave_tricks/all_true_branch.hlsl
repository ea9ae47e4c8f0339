// Article 003, trick 1: branch on WaveActiveAllTrue (the article writes
// WaveAllTrue, the SM6 name is WaveActiveAllTrue).
// Both paths compute the same function f(x) = (x mod 1024)^2; the "optimal" one
// (one multiply) is only valid for x < 1024, the "non optimal" one (a loop of up
// to 1023 iterations) works for every x.  CSNaive branches per lane, so a wave
// with any lane >= 1024 runs both paths; CSWave takes the fast path only when
// every lane of the wave can, and otherwise the slow path with every lane.
// The output is the same for both entries and every wave size.

[[vk::binding(0, 0)]] StructuredBuffer<uint> Input;
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> Output;

uint OptimalWay(uint x)      // valid for x < 1024
{
    return x * x;
}

uint NonOptimalWay(uint x)   // valid for every x
{
    uint n = x & 1023u;
    uint acc = 0;
    for (uint k = 0; k < n; ++k)
        acc += 2 * k + 1;    // sum of the first n odd numbers = n^2
    return acc;
}

[numthreads(64, 1, 1)]
void CSNaive(uint3 threadID : SV_DispatchThreadID)
{
    uint x = Input[threadID.x];
    bool canBeOptimized = x < 1024;
    uint r;
    if (canBeOptimized)
    {
        r = OptimalWay(x);
    }
    else
    {
        r = NonOptimalWay(x);
    }
    Output[threadID.x] = r;
}

[numthreads(64, 1, 1)]
void CSWave(uint3 threadID : SV_DispatchThreadID)
{
    uint x = Input[threadID.x];
    bool canBeOptimized = x < 1024;
    uint r;
    bool optimalWay = WaveActiveAllTrue(canBeOptimized);
    if (optimalWay)
    {
        r = OptimalWay(x);
    }
    else
    {
        r = NonOptimalWay(x);
    }
    Output[threadID.x] = r;
}
