/*
 * listen.c - a listener on 127.0.0.1:PORT for the socket fixture's test
 * (t1003): it appends what each connection sends to FILE, and writes
 * FILE.ready once it listens. Usage: listen PORT FILE. Ends on SIGTERM.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in addr = {.sin_family = AF_INET};
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);
	char ready[4096], buf[256];

	if (argc != 3 || fd < 0)
		return 2;
	addr.sin_port = htons((unsigned short)atoi(argv[1]));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 16)) {
		perror("listen");
		return 1;
	}
	snprintf(ready, sizeof(ready), "%s.ready", argv[2]);
	fclose(fopen(ready, "w"));
	for (;;) {
		int c = accept(fd, NULL, NULL);
		if (c < 0)
			continue;
		ssize_t n = read(c, buf, sizeof(buf));
		FILE *f = fopen(argv[2], "a");
		if (f) {
			fprintf(f, "connection: %.*s\n", n > 0 ? (int)n : 0, buf);
			fclose(f);
		}
		close(c);
	}
}
