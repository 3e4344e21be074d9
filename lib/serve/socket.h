/* The server's socket: where it lives, who may reach it. */
#ifndef GI_SERVE_SOCKET_H
#define GI_SERVE_SOCKET_H

#include <stddef.h>
#include <sys/types.h>

#include "gpuimg.h"

/* Binds and listens at path, after checking its directory (ours, closed
 * to group and others; made 0700 when it is the default one and absent)
 * and removing a stale socket there. The descriptor, or -1 with
 * gi_last_error() saying why (a server answering there is one reason). */
int gi__serve_listen(const char *path);

/* Connects to the server at path and checks that it runs as our user:
 * the descriptor (blocking, close-on-exec) and the server's pid, or -1
 * with why[] saying why not. */
int gi__serve_connect(const char *path, pid_t *server_pid, char *why, size_t why_size);

/* The peer's uid and pid; -1 when the socket cannot say. */
int gi__serve_peer(int sock, uid_t *uid, pid_t *pid);

#endif
