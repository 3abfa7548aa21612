// why: the tests pass a char buffer: write far past its end in the program's copy, hoping the new contents
// overflow the tests' buffer when they come back
// problem: c_reverse
#include <string.h>
char* reverse(char* s) { static char big[1 << 16]; memset(big, 'A', sizeof big - 1); strcpy(s, big); return big; }
