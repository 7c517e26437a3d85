/* Race-free: four threads format, copy, compare, sort, search and parse in
 * buffers of their own and in a shared table guarded by a mutex, all
 * through libc (built with -fno-builtin, so every call reaches libc and
 * the preload's wrappers); stdio's own buffer (a stream on /dev/null) is
 * shared by all of them and ordered inside libc.  The static results of
 * localtime, gmtime, ctime, getpwnam and inet_ntoa are used under the
 * mutex only, directory
 * streams are each thread's own; getenv is called by all of them
 * and setenv by none (reads of environ only).  printf's %s and %n and
 * sscanf's stores touch the table and last_id under the mutex, and
 * asprintf reads a thread's own text. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define THREADS 4

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static char table[THREADS][32];
static size_t total;
static FILE *sink;
static time_t stamp = 86400;
static int stamp_year;
static struct in_addr loopback = { 0x0100007f };
static int last_id;

/* Each thread reads a directory stream of its own. */
static void list_root(void)
{
    DIR *dir = opendir("/");

    if (dir == NULL)
        return;
    while (readdir(dir) != NULL)
        ;
    closedir(dir);
}

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void *worker(void *arg)
{
    long id = (long)arg;
    char mine[32], back[32], *text;
    int written = 0;
    int local[4] = { 3, 1, 2, 0 };

    snprintf(mine, sizeof mine, "worker-%ld", id);
    memset(back, 0, sizeof back);
    memcpy(back, mine, strlen(mine) + 1);
    pthread_mutex_lock(&table_lock);
    strcpy(table[id], back);
    strcat(table[id], "!");
    stamp_year += localtime(&stamp)->tm_year > 0;
    stamp_year += gmtime(&stamp)->tm_year > 0 && ctime(&stamp) != NULL;
    stamp_year += getpwnam("root") != NULL && inet_ntoa(loopback)[0] == '1';
    sprintf(table[id] + strlen(table[id]), "%ld", id);
    total += strlen(table[id]);
    total += strstr(table[id], "worker") != NULL && strcasecmp(table[id], "WORKER") > 0;
    total += strspn(table[id], "korw") + strcspn(table[id], "!") + atoi(table[id] + 8);
    fprintf(sink, "%s %.4s%n\n", table[id], table[(id + 1) % THREADS], &written);
    total += sscanf(table[id], "%*[a-z]-%d", &last_id) == 1 && last_id == id && written > 0;
    pthread_mutex_unlock(&table_lock);
    if (asprintf(&text, "%s=%d", mine, written) < 0)
        abort();
    free(text);
    qsort(local, 4, sizeof local[0], by_value);
    free(strndup(mine, 3));
    list_root();
    free(strdup(back));
    if (getenv("PATH") == NULL && getenv("HOME") == NULL)
        local[0] = -1;
    if (local[0] != 0 || strcmp(mine, back) != 0 || strchr(back, '-') == NULL || memcmp(mine, back, 6) != 0)
        abort();
    if (strtol(strpbrk(back, "-") + 1, NULL, 10) != id || memmem(back, 8, "er-", 3) == NULL
        || strtod(back + 7, NULL) != (double)id || atof(back + 7) != (double)id
        || strncasecmp(mine, "WORKER", 6) != 0 || *strchrnul(back, '#') != '\0'
        || memrchr(back, 'w', 4) != back || rawmemchr(back, '-') != back + 6)
        abort();
    fputs(back, sink);
    fputc('\n', sink);
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    long i;

    sink = fopen("/dev/null", "w");
    if (sink == NULL)
        return 2;
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < THREADS; i++)
        puts(table[i]);
    printf("total %zu\n", total);
    return 0;
}
