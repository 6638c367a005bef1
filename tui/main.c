/*
 * main.c - the stagecut program.  Everything is in ui_main (cli.c).
 */
#include "tui/cmd/cli.h"

int main(int argc, char **argv)
{
	return ui_main(argc, argv);
}
