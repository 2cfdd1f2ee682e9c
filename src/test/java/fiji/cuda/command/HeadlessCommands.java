package fiji.cuda.command;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.scijava.Context;
import org.scijava.command.CommandService;

/**
 * What the command tests share: one plain headless SciJava context per test class, as a
 * script or another SciJava tool would run the commands, disposed of afterwards.
 */
abstract class HeadlessCommands {

	static Context context;
	static CommandService commands;

	@BeforeAll
	static void startContext() {
		context = new Context(CommandService.class);
		commands = context.service(CommandService.class);
	}

	@AfterAll
	static void closeContext() {
		context.dispose();
	}

	/** @return the inputs {@code first}, then {@code rest}: name, value, name, value... for {@link CommandService#run} */
	static Object[] inputs(Object[] first, Object... rest) {
		Object[] in = java.util.Arrays.copyOf(first, first.length + rest.length);
		System.arraycopy(rest, 0, in, first.length, rest.length);
		return in;
	}
}
