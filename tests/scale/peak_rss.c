/* peak_rss COMMAND [ARGS...]: runs COMMAND, its stdout and stderr
 * discarded, and prints its peak RSS in kB, or "failed" when it did not
 * exit 0. A small wrapper, so that the RSS measured is the command's
 * alone and not that of a bigger parent it was forked from. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: peak_rss COMMAND [ARGS...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (pid < 0 || wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        puts("failed");
        return 1;
    }
    printf("%ld\n", usage.ru_maxrss);
    return 0;
}
