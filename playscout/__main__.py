from playscout.cli import main

main()
