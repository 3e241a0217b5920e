/*
 * htmlsimilar.h - the page of a class's most alike pairs (cudalab similar
 * --html): each pair side by side, the runs alike marked.
 */
#ifndef HTMLSIMILAR_H
#define HTMLSIMILAR_H

#include "similar.h"

/*
 * The page of c's first top pairs (0: all), allocated. lab and title name
 * the lab, starter the folder whose code was left out (NULL: none). Every
 * text of a submission, and every student's id, is HTML-escaped.
 */
char *html_similar(const struct sim_class *c, const char *lab, const char *title,
		   const char *starter, size_t top);

#endif
