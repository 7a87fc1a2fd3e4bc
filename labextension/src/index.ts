/**
 * JupyterLab MIME extension for jupyter_autograd computation graphs.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';

import { MIME_TYPE } from './schema';
import { GraphWidget } from './widget';

/** The renderer factory: safe, so untrusted notebooks render the same way. */
export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  createRenderer: options => new GraphWidget(options)
};

/** The extension JupyterLab loads. */
const extension: IRenderMime.IExtension = {
  id: 'jupyter-autograd:graph',
  description: 'Interactive view of jupyter_autograd computation graphs.',
  rendererFactory,
  rank: 0,
  dataType: 'json'
};

export default extension;
