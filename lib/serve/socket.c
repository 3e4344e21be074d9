/* The socket's path and directory, binding, connecting, peer credentials. */
#define _GNU_SOURCE /* struct ucred, accept4 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/gi_error.h"
#include "serve.h"
#include "socket.h"

int gi_serve_default_socket(char *path, size_t size)
{
    const char *run = getenv("XDG_RUNTIME_DIR");
    int n = run && *run ? snprintf(path, size, "%s/gpuimg/socket", run)
                        : snprintf(path, size, "/tmp/gpuimg-%ld/socket", (long)getuid());
    return n > 0 && (size_t)n < size && (size_t)n < sizeof ((struct sockaddr_un *)0)->sun_path ? 0
                                                                                            : -1;
}

static int fill_address(struct sockaddr_un *a, const char *path)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a->sun_path) return -1;
    memcpy(a->sun_path, path, strlen(path) + 1);
    return 0;
}

int gi__serve_peer(int sock, uid_t *uid, pid_t *pid)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
        return -1;
    *uid = cred.uid;
    *pid = cred.pid;
    return 0;
}

int gi__serve_connect(const char *path, pid_t *server_pid, char *why, size_t why_size)
{
    struct sockaddr_un a;
    if (fill_address(&a, path) != 0) {
        snprintf(why, why_size, "%s: socket path too long", path);
        return -1;
    }
    /* Non-blocking for the connect alone: a server whose backlog is full
     * is busy, not something to wait for. */
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        snprintf(why, why_size, "no server at %s: %s", path,
                 errno == EAGAIN ? "its queue is full" : strerror(errno));
        if (s >= 0) close(s);
        return -1;
    }
    uid_t uid;
    if (fcntl(s, F_SETFL, 0) != 0 || gi__serve_peer(s, &uid, server_pid) != 0 || uid != getuid()) {
        snprintf(why, why_size, "%s: the server there is not ours", path);
        close(s);
        return -1;
    }
    return s;
}

/* The socket's directory: made 0700 when it is the default one, and in
 * any case a real directory of ours that nobody else may enter, so no one
 * can swap the socket under a client. */
static int check_directory(const char *path)
{
    char dir[sizeof ((struct sockaddr_un *)0)->sun_path], fallback[sizeof dir];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    if (gi_serve_default_socket(fallback, sizeof fallback) == 0 && strcmp(fallback, path) == 0 &&
        mkdir(dir, 0700) != 0 && errno != EEXIST)
        return gi__fail(GI_ERR_IO, "%s: cannot make the socket's directory: %s", dir,
                        strerror(errno)), -1;
    struct stat st;
    if (lstat(dir, &st) != 0)
        return gi__fail(GI_ERR_IO, "%s: %s", dir, strerror(errno)), -1;
    /* Anyone may make a name in /tmp first: one made by another user is
     * said to be so, with the ways around it that are ours to take. */
    if (st.st_uid != getuid())
        return gi__fail(GI_ERR_IO, "%s: the socket's directory belongs to another user (uid %ld), "
                        "not to you: it is not used, as its owner could take your calls; name a "
                        "socket in a directory of your own (--socket PATH or GPUIMG_SERVER, or set "
                        "XDG_RUNTIME_DIR), or have that directory removed", dir,
                        (long)st.st_uid), -1;
    if (!S_ISDIR(st.st_mode))
        return gi__fail(GI_ERR_IO, "%s: the socket's directory is not a directory%s", dir,
                        S_ISLNK(st.st_mode) ? " (a symbolic link)" : ""), -1;
    if ((st.st_mode & 077) != 0)
        return gi__fail(GI_ERR_IO, "%s: the socket's directory must be closed to group and others "
                        "(chmod 700 %s)", dir, dir), -1;
    return 0;
}

int gi__serve_listen(const char *path)
{
    struct sockaddr_un a;
    if (fill_address(&a, path) != 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: socket path too long", path), -1;
    if (check_directory(path) != 0) return -1;
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return gi__fail(GI_ERR_IO, "%s: exists and is not a socket", path), -1;
        char why[200];
        pid_t pid;
        int s = gi__serve_connect(path, &pid, why, sizeof why);
        if (s >= 0) {
            close(s);
            return gi__fail(GI_ERR_IO, "%s: a server (pid %ld) answers there already", path,
                            (long)pid), -1;
        }
        unlink(path); /* stale: its server is gone */
    }
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return gi__fail(GI_ERR_IO, "socket: %s", strerror(errno)), -1;
    mode_t old = umask(077);
    int bound = bind(s, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (bound != 0 || listen(s, 128) != 0) {
        gi__fail(GI_ERR_IO, "%s: %s", path, strerror(errno));
        close(s);
        return -1;
    }
    return s;
}
