/* fork + exec: the child becomes /bin/true (run under the tool too with
 * --trace-children=yes), the parent waits for it; a thread is running
 * meanwhile.  The program's output and exit code must be the native ones. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *idle(void *arg)
{
    usleep(1000);
    return arg;
}

int main(void)
{
    pthread_t t;
    pid_t pid;
    int status = 0;

    pthread_create(&t, NULL, idle, NULL);
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 2;
    pthread_join(t, NULL);
    printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
