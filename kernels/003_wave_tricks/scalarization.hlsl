// Article 003, trick 4: scalarization of a per-lane light type.
//  CSNaive:           a plain per-lane if/else chain (the wave runs every type
//                     present in it, with the type in a vector register).
//  CSScalarized:      the article's loop: WaveReadLaneFirst picks the first
//                     active lane's type, the lanes of that type run it and
//                     break out, the loop repeats for the rest.
//  CSScalarizedFast:  trick 4 combined with trick 1: if every lane has the
//                     first lane's type (ballot == ballot(true)), run it
//                     directly, otherwise run the loop.
// All three write the same output at every wave size.  The Calculate*
// functions are integer stand-ins for the lighting code.

#define LIGHT_TYPE_SPOT  0
#define LIGHT_TYPE_DIR   1
#define LIGHT_TYPE_POINT 2
#define LIGHT_TYPE_AREA  3

struct Light
{
    uint LightType;
    uint Param;
};

[[vk::binding(0, 0)]] StructuredBuffer<Light> LightData;
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> Output;

uint CalculateSpot(uint p)  { return p * 3u + 1u; }
uint CalculateDir(uint p)   { return p ^ 0x5A5A5A5Au; }
uint CalculatePoint(uint p) { return (p >> 3) + p * 7u; }
uint CalculateArea(uint p)  { return p * p + 11u; }

uint Calculate(uint lightType, uint p)
{
    if (lightType == LIGHT_TYPE_SPOT)
        return CalculateSpot(p);
    else if (lightType == LIGHT_TYPE_DIR)
        return CalculateDir(p);
    else if (lightType == LIGHT_TYPE_POINT)
        return CalculatePoint(p);
    else
        return CalculateArea(p);
}

[numthreads(64, 1, 1)]
void CSNaive(uint3 threadID : SV_DispatchThreadID)
{
    uint lightType = LightData[threadID.x].LightType;
    uint p = LightData[threadID.x].Param;
    Output[threadID.x] = Calculate(lightType, p);
}

[numthreads(64, 1, 1)]
void CSScalarized(uint3 threadID : SV_DispatchThreadID)
{
    uint lightType = LightData[threadID.x].LightType;
    uint p = LightData[threadID.x].Param;
    uint result = 0;

    // Execute until all branches are processed
    while (WaveActiveAnyTrue(lightType == WaveReadLaneFirst(lightType)))
    {
        // Using read lane first so it is stored in SGPR
        uint currentLightType = WaveReadLaneFirst(lightType);

        // Only the lanes that share the same lightType as first lane will go in
        if (lightType == currentLightType)
        {
            result = Calculate(currentLightType, p);

            // After this line all of the lanes with currentLightType will be inactive
            // so WaveReadLaneFirst in the next iteration will give different value
            // Since WaveReadLaneFirst gives the first ACTIVE lane
            break;
        }
    }
    Output[threadID.x] = result;
}

[numthreads(64, 1, 1)]
void CSScalarizedFast(uint3 threadID : SV_DispatchThreadID)
{
    uint lightType = LightData[threadID.x].LightType;
    uint p = LightData[threadID.x].Param;
    uint result = 0;

    uint4 laneMask = WaveActiveBallot(lightType == WaveReadLaneFirst(lightType));
    if (all(laneMask == WaveActiveBallot(true))) // Fast way without scalarization
    {
        result = Calculate(WaveReadLaneFirst(lightType), p);
    }
    else // Slower way with scalarization but less VGPRs
    {
        while (WaveActiveAnyTrue(lightType == WaveReadLaneFirst(lightType)))
        {
            uint currentLightType = WaveReadLaneFirst(lightType);
            if (lightType == currentLightType)
            {
                result = Calculate(currentLightType, p);
                break;
            }
        }
    }
    Output[threadID.x] = result;
}
