/* suggest.h - "did you mean": the nearest of the names a word could have
 * meant, for every diagnostic and usage error that offers one (unknown
 * names, params, algorithms, options, commands, targets, keywords).
 *
 *   Suggest sg;
 *   suggest_init(&sg, word, SUGGEST_NAME);
 *   for (each candidate) suggest_offer(&sg, candidate->name, candidate);
 *   if (sg.best) ... "did you mean '%s'?", sg.best ... (sg.item: its candidate)
 *
 * A candidate is near when its edit distance to the word is at most 2 (the
 * rule of each kind below says what else); the first of equally near
 * candidates wins, so callers offer the likeliest first (the innermost
 * scope, the table's order). A candidate equal to the word is never offered
 * back. */
#ifndef COLLC_SUGGEST_H
#define COLLC_SUGGEST_H

/* What the word is, and so how near is near. */
typedef enum SuggestKind {
    SUGGEST_NAME,     /* a name of the input or of a table: the distance is also
                         below the word's length (a one-letter word gets no
                         random guess) */
    SUGGEST_COMMAND,  /* a command: a command the word begins (two letters or
                         more: "ver" for verify) is as near as one typo */
    SUGGEST_OPTION,   /* an option spelling: the distance is also below a third
                         of the word's length (short spellings all look alike) */
    SUGGEST_KEYWORD,  /* a keyword: the distance is at most half the keyword's
                         length */
} SuggestKind;

typedef struct Suggest {
    const char *word;
    SuggestKind kind;
    const char *best;  /* the nearest candidate offered so far, or NULL */
    const void *item;  /* what was offered with it */
    int dist;          /* its distance */
} Suggest;

void suggest_init(Suggest *s, const char *word, SuggestKind kind);
/* Offers `name` (NULL is ignored), standing for `item`. */
void suggest_offer(Suggest *s, const char *name, const void *item);

/* Levenshtein distance; names longer than 64 bytes are never near. */
int edit_distance(const char *a, const char *b);

#endif
