// textureGrad on a cube map: the direction's gradients are projected onto the face the direction
// selects (Vulkan, "Cube Map Derivative Computation") before the level of detail is taken from them, so a
// gradient along the face's normal counts less than its length and one along the face counts half of it
// per unit of the face's [-1, 1] extent.  Nearest filtering and nearest mip: the level read shows the LOD.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform samplerCube env;
layout(set = 0, binding = 1) readonly buffer Rays { vec4 r[]; } rays; // direction, d/dx, d/dy per lane
layout(set = 0, binding = 2) buffer Out { vec4 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    o.v[i] = textureGrad(env, rays.r[3u * i].xyz, rays.r[3u * i + 1u].xyz, rays.r[3u * i + 2u].xyz);
}
