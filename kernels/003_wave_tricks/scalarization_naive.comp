#version 450
// Article 003, trick 4 (naive): see scalarization.hlsl.


layout(local_size_x = 64) in;

#define LIGHT_TYPE_SPOT  0u
#define LIGHT_TYPE_DIR   1u
#define LIGHT_TYPE_POINT 2u
#define LIGHT_TYPE_AREA  3u

struct Light { uint lightType; uint param; };
layout(set = 0, binding = 0, std430) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint outputData[]; };

uint calculateSpot(uint p)  { return p * 3u + 1u; }
uint calculateDir(uint p)   { return p ^ 0x5A5A5A5Au; }
uint calculatePoint(uint p) { return (p >> 3) + p * 7u; }
uint calculateArea(uint p)  { return p * p + 11u; }

uint calculate(uint lightType, uint p)
{
    if (lightType == LIGHT_TYPE_SPOT)
        return calculateSpot(p);
    else if (lightType == LIGHT_TYPE_DIR)
        return calculateDir(p);
    else if (lightType == LIGHT_TYPE_POINT)
        return calculatePoint(p);
    else
        return calculateArea(p);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    uint lightType = lights[i].lightType;
    uint p = lights[i].param;
    uint result = 0u;
    result = calculate(lightType, p);
    outputData[i] = result;
}
