/* suggest.c - the one "did you mean" rule (see suggest.h). */
#include "support/suggest.h"

#include <string.h>

int edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 1000;
    int row[65];
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int prev = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cur = row[j];
            int best = prev + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[lb];
}

void suggest_init(Suggest *s, const char *word, SuggestKind kind) {
    s->word = word;
    s->kind = kind;
    s->best = NULL;
    s->item = NULL;
    s->dist = 3;
}

/* The distance of `name` if it is near by the rule of s->kind, else -1. */
static int near(const Suggest *s, const char *name) {
    int d = edit_distance(s->word, name);
    int len = (int)strlen(s->word);
    switch (s->kind) {
    case SUGGEST_NAME: return d < len ? d : -1;
    case SUGGEST_COMMAND: return len >= 2 && strncmp(name, s->word, (size_t)len) == 0 ? 1 : d;
    case SUGGEST_OPTION: return d * 3 < len ? d : -1;
    case SUGGEST_KEYWORD: return d <= (int)strlen(name) / 2 ? d : -1;
    }
    return -1;
}

void suggest_offer(Suggest *s, const char *name, const void *item) {
    if (!name || strcmp(name, s->word) == 0) return;
    int d = near(s, name);
    if (d >= 0 && d < s->dist) {
        s->dist = d;
        s->best = name;
        s->item = item;
    }
}
