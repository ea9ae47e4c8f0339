// b[i] += 1 in place: run several times, every run must see the case's initial contents.
#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { uint b[]; };
void main()
{
    b[gl_GlobalInvocationID.x] += 1u;
}
