/* The floor of what reading costs: sd_journal_next, the cursor and every field of each entry,
 * nothing made of them. bench/journal/run.sh reports it next to journalctl and the follower. */
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-journal.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: cloop DIR [_SYSTEMD_UNIT=unit]\n"); return 2; }
    sd_journal *j;
    if (sd_journal_open_directory(&j, argv[1], 0) < 0) { perror("open"); return 1; }
    for (int i = 2; i < argc; i++) sd_journal_add_match(j, argv[i], 0);
    unsigned long entries = 0, bytes = 0;
    while (sd_journal_next(j) > 0) {
        char *cursor;
        if (sd_journal_get_cursor(j, &cursor) >= 0) free(cursor);
        const void *data; size_t length;
        SD_JOURNAL_FOREACH_DATA(j, data, length) bytes += length;
        entries++;
    }
    sd_journal_close(j);
    printf("records=%lu bytes=%lu\n", entries, bytes);
    return 0;
}
