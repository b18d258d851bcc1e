/* nodelay.so: LD_PRELOAD'ed into nginx by the real-stack bench (issue 18) when Nagle is off.
 *
 * nginx sets TCP_NODELAY only when a connection turns keep-alive (after its first response) or speaks
 * h2 or TLS, so an HTTP/1.0 response, and the first response on every keep-alive connection, leave with
 * Nagle on whatever the config says. The model's scenario has one switch for both ends; this shim sets
 * TCP_NODELAY on every socket nginx accepts, so "Nagle off" is off from the first byte. Without the shim
 * (and with "tcp_nodelay off" in the config) nginx never sets it: Nagle on throughout.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static void nodelay(int fd) {
    int one = 1;
    if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    static int (*real)(int, struct sockaddr *, socklen_t *, int);
    if (!real) real = (int (*)(int, struct sockaddr *, socklen_t *, int))dlsym(RTLD_NEXT, "accept4");
    int s = real(fd, addr, len, flags);
    nodelay(s);
    return s;
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
    static int (*real)(int, struct sockaddr *, socklen_t *);
    if (!real) real = (int (*)(int, struct sockaddr *, socklen_t *))dlsym(RTLD_NEXT, "accept");
    int s = real(fd, addr, len);
    nodelay(s);
    return s;
}
