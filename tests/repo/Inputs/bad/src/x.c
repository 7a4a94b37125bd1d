/* x.c - the table comes from /@@Users/bob/tables.txt. */
int x;
