package fiji.cuda.command;

import fiji.cuda.ij.IjBridge;

import org.scijava.plugin.Plugin;
import org.scijava.service.AbstractService;
import org.scijava.service.SciJavaService;
import org.scijava.service.Service;

/**
 * Applies the device chosen in GPU Info, and sends the operations' Log lines to ImageJ's Log,
 * when Fiji starts: a script calling the operations' API directly (the ImgLib2 integral images,
 * say) before any of this project's menu commands had loaded ran on the GPU after "CPU only"
 * was chosen, and its fallback lines went to the console. It also starts noting which macro
 * calls each of the menu commands, for a failed one to stop that macro and no other, from the
 * first command on ({@code IjErrors.noteCallers}).
 */
@Plugin(type = Service.class)
public class FijiCudaService extends AbstractService implements SciJavaService {

	@Override
	public void initialize() {
		IjBridge.initEarly();
	}
}
