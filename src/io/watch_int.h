/*
 * watch_int.h - what the watcher (watch.c) and the hooks' side of it
 * (watch_client.c) share: the socket's name.
 */
#ifndef ROZ_WATCH_INT_H
#define ROZ_WATCH_INT_H

#include <sys/socket.h>
#include <sys/un.h>

/* The abstract socket of the watcher of `root`, for this user. ROZ_OK or ROZ_EINVALID. */
int roz_watch_socket_name(const char *root, struct sockaddr_un *a, socklen_t *len);

#endif
