from aac.cli import main

main()
